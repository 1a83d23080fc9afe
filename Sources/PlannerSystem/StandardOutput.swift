import Glibc

/// Standard output written at once, not through Swift's buffer: a delivery line of the stdout sink and
/// `export`'s calendar must know when their bytes could not be written (a closed pipe, a full disk).
public enum StandardOutput {
    /// Writes all of `text` to fd 1; nil once written, else why it could not be (the system's words).
    public static func write(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += n
        }
        return nil
    }
}
