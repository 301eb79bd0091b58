#if canImport(Glibc)
import Glibc
#endif
internal import CRigDrivers

/// snd-aloop's `PCM Rate Shift 100000` control: with `device=1` and a subdevice, it runs that
/// subdevice's cable (playback `hw:Loopback,0,N` into capture `hw:Loopback,1,N`) at 48000 ×
/// 100000 / value frames per second of system time, a sound card whose crystal is off.
/// Set it before either end is opened.
enum LoopbackRateShift {
    /// The control's value for a cable running `partsPerMillion` fast (negative: slow).
    static func value(partsPerMillion: Int) -> Int {
        Int((100_000 / (1 + Double(partsPerMillion) / 1e6)).rounded())
    }

    static func set(_ value: Int, subdevice: UInt32) throws(CaseError) {
        var ctl: OpaquePointer?
        var rc = snd_ctl_open(&ctl, "hw:Loopback", 0)
        guard rc >= 0, let ctl else { throw CaseError("opening hw:Loopback's controls: \(String(cString: snd_strerror(rc)))") }
        defer { snd_ctl_close(ctl) }
        var list: OpaquePointer?
        snd_ctl_elem_list_malloc(&list)
        defer { snd_ctl_elem_list_free(list) }
        _ = snd_ctl_elem_list(ctl, list)
        let count = snd_ctl_elem_list_get_count(list)
        guard snd_ctl_elem_list_alloc_space(list, count) >= 0, snd_ctl_elem_list(ctl, list) >= 0 else {
            throw CaseError("listing hw:Loopback's controls failed")
        }
        defer { snd_ctl_elem_list_free_space(list) }
        // The control's whole id (interface and number included) as the card lists it.
        var id: OpaquePointer?
        snd_ctl_elem_id_malloc(&id)
        defer { snd_ctl_elem_id_free(id) }
        var found = false
        for i in 0..<snd_ctl_elem_list_get_used(list)
        where String(cString: snd_ctl_elem_list_get_name(list, i)) == "PCM Rate Shift 100000"
            && snd_ctl_elem_list_get_device(list, i) == 1 && snd_ctl_elem_list_get_subdevice(list, i) == subdevice {
            snd_ctl_elem_list_get_id(list, i, id)
            found = true
        }
        guard found else { throw CaseError("hw:Loopback has no 'PCM Rate Shift 100000' for device 1, subdevice \(subdevice) (snd-aloop too old?)") }
        var element: OpaquePointer?
        snd_ctl_elem_value_malloc(&element)
        defer { snd_ctl_elem_value_free(element) }
        snd_ctl_elem_value_set_id(element, id)
        snd_ctl_elem_value_set_integer(element, 0, value)
        rc = snd_ctl_elem_write(ctl, element)
        guard rc >= 0 else {
            throw CaseError("setting 'PCM Rate Shift 100000' (device 1, subdevice \(subdevice)) to \(value): \(String(cString: snd_strerror(rc)))")
        }
    }
}
