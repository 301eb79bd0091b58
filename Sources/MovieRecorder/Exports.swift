// Everything in the container layer — orientation, atoms, the writer and reader — is part of
// this library's API, so `import MovieRecorder` is all an application needs.
@_exported import MovieContainer
