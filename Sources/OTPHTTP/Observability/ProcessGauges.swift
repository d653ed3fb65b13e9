import Foundation

/// The process's own figures for `/metrics`, in Prometheus's standard names: resident memory, open
/// files and the start time (uptime is now less it).
///
/// Read from `/proc/self` on Linux; elsewhere only the start time is known.
enum ProcessGauges {
    /// When this process started serving figures, as seconds since 1970.
    static let startTime = Date().timeIntervalSince1970

    /// The gauges as Prometheus text.
    static func text() -> String {
        var out = ""
        if let resident = residentBytes() {
            out += "# HELP process_resident_memory_bytes Resident memory of the server process.\n"
            out += "# TYPE process_resident_memory_bytes gauge\n"
            out += "process_resident_memory_bytes \(resident)\n"
        }
        if let open = openFiles() {
            out += "# HELP process_open_fds Open file descriptors of the server process.\n"
            out += "# TYPE process_open_fds gauge\n"
            out += "process_open_fds \(open)\n"
        }
        out += "# HELP process_start_time_seconds When the server process started, in seconds since 1970.\n"
        out += "# TYPE process_start_time_seconds gauge\n"
        out += "process_start_time_seconds \(Int(startTime))\n"
        return out
    }

    /// Resident pages times the page size, from `/proc/self/statm`.
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The entries of `/proc/self/fd`, less the one the listing itself holds open.
    static func openFiles() -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        return max(0, entries.count - 1)
    }
}
