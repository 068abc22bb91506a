//go:build !unix

package wire

// FDLimit is a generous guess where the system has no open-files limit to
// ask (Windows' handle table grows as needed).
func FDLimit() uint64 { return 1 << 16 }
