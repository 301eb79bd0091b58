/// Gives coded pictures their display positions while they arrive in decode order, the way a
/// decoder's output process does when the stream states its reorder bound
/// (`max_num_reorder_frames`, ITU-T H.264 §C.4.5.3): once more pictures wait than the bound
/// allows, the one shown first among them can be shown, and an IDR picture shows all that wait.
///
/// For a stream that keeps its bound this is the order of sorting the pictures by IDR period
/// and picture order count (``AnnexBStream``'s order), found without the rest of the stream. A
/// stream that breaks its bound is caught, not misordered: ``add(idrPeriod:pictureOrderCount:show:)``
/// throws as soon as a picture arrives that should have been shown before one already shown.
package struct PresentationOrder: Sendable {
    /// A picture arrived that belongs before one already shown: the stream holds more pictures
    /// back than its sequence parameter set says.
    package struct BoundExceeded: Error, Sendable, CustomStringConvertible {
        /// The late picture's position in decode order.
        package var decodeIndex: Int
        /// The bound the stream stated.
        package var reorderBound: Int

        package var description: String {
            "picture \(decodeIndex) (decode order) comes later than max_num_reorder_frames \(reorderBound) allows"
        }
    }

    /// The stated bound.
    package let reorderBound: Int
    private var waiting: [(decodeIndex: Int, pictureOrderCount: Int)] = []
    private var period = Int.min
    private var lastShownPictureOrderCount: Int?
    private var decodeCount = 0
    private var shownCount = 0

    /// Creates an order for a stream whose sequence parameter set states `reorderBound`
    /// (``SequenceParameterSet/maxNumReorderFrames``).
    package init(reorderBound: Int) {
        self.reorderBound = max(0, reorderBound)
        waiting.reserveCapacity(self.reorderBound + 1)
    }

    /// Adds the next picture in decode order and calls `show` with the decode and presentation
    /// index of every picture whose display position is now known, in display order.
    /// - Returns: the picture's decode index.
    /// - Throws: ``BoundExceeded`` when the picture should have been shown already.
    @discardableResult
    package mutating func add(idrPeriod: Int, pictureOrderCount: Int,
                             show: (_ decodeIndex: Int, _ presentationIndex: Int) -> Void) throws(BoundExceeded) -> Int {
        if idrPeriod != period {
            showAll(show)
            period = idrPeriod
            lastShownPictureOrderCount = nil
        }
        let decodeIndex = decodeCount
        if let last = lastShownPictureOrderCount, pictureOrderCount < last {
            throw BoundExceeded(decodeIndex: decodeIndex, reorderBound: reorderBound)
        }
        decodeCount += 1
        waiting.append((decodeIndex, pictureOrderCount))
        while waiting.count > reorderBound { showFirst(show) }
        return decodeIndex
    }

    /// Ends the stream: shows every picture still waiting.
    package mutating func finish(show: (_ decodeIndex: Int, _ presentationIndex: Int) -> Void) {
        showAll(show)
    }

    private mutating func showAll(_ show: (Int, Int) -> Void) {
        while !waiting.isEmpty { showFirst(show) }
    }

    /// Shows the waiting picture with the lowest picture order count (the earlier decoded of
    /// equals).
    private mutating func showFirst(_ show: (Int, Int) -> Void) {
        var first = 0
        for i in waiting.indices.dropFirst()
        where (waiting[i].pictureOrderCount, waiting[i].decodeIndex) < (waiting[first].pictureOrderCount, waiting[first].decodeIndex) {
            first = i
        }
        let picture = waiting.remove(at: first)
        lastShownPictureOrderCount = picture.pictureOrderCount
        show(picture.decodeIndex, shownCount)
        shownCount += 1
    }
}
