package wire

import (
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Logger returns the process logger: a console encoder when stderr is a
// terminal, JSON otherwise. One logger is passed down; there are no globals.
func Logger(service string, debug bool) *zap.Logger {
	level := zapcore.InfoLevel
	if debug {
		level = zapcore.DebugLevel
	}
	var enc zapcore.Encoder
	if isTerminal(os.Stderr) {
		cfg := zap.NewDevelopmentEncoderConfig()
		cfg.EncodeLevel = zapcore.CapitalColorLevelEncoder
		enc = zapcore.NewConsoleEncoder(cfg)
	} else {
		enc = zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	}
	core := zapcore.NewCore(enc, zapcore.Lock(os.Stderr), level)
	return zap.New(core).With(zap.String("service", service))
}

// isTerminal reports whether f is a character device (a TTY).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// IsTerminal reports whether f is a terminal (for progress lines).
func IsTerminal(f *os.File) bool { return isTerminal(f) }
