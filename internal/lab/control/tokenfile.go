package control

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lblab/lblab/internal/shell/wire"
)

// A controller that requires a token (lab up, lab run --dashboard or lab
// dashboard given --token or LBLAB_TOKEN) writes it to a file only its
// user can read, named after the address lab up prints, and removes it
// when it stops. lab chaos, given no token, reads the file of the address
// it calls: so the drill hint lab up prints works as printed, in any
// terminal of the same user, and the token never goes on a command line
// (where ps shows it to every user of the machine).

// tokenDir is where those files are: $XDG_RUNTIME_DIR/lblab (a per-user
// directory the system clears at logout), else the user's cache
// directory's lblab (~/.cache/lblab).
func tokenDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "lblab"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "lblab"), nil
}

// TokenFile is the path of the token file of the controller at addr
// (HOST:PORT as lab chaos dials it).
func TokenFile(addr string) (string, error) {
	dir, err := tokenDir()
	if err != nil {
		return "", err
	}
	name := strings.NewReplacer(":", "_", "[", "", "]", "", "/", "_").Replace(addr)
	return filepath.Join(dir, "controller-"+name+".token"), nil
}

// writeTokenFile writes token to addr's token file (mode 0600 in a 0700
// directory) and returns its path and what removes it again; the remover
// leaves a file another controller has written since.
func writeTokenFile(addr, token string) (string, func(), error) {
	path, err := TokenFile(addr)
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return "", nil, err
	} else if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("%s is open to other users (%v) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	tmp, err := os.CreateTemp(dir, ".token-*") // 0600
	if err != nil {
		return "", nil, err
	}
	_, err = tmp.WriteString(token + "\n")
	if err2 := tmp.Close(); err == nil {
		err = err2
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", nil, err
	}
	return path, func() {
		if data, err := os.ReadFile(path); err == nil && string(bytes.TrimSpace(data)) == token {
			os.Remove(path)
		}
	}, nil
}

// RunningToken is the token of the controller at addr as its token file
// holds it ("" when there is none: the controller requires no token, or
// runs as another user). A file that other users could read or write is
// not trusted.
func RunningToken(addr string) (string, error) {
	path, err := TokenFile(addr)
	if err != nil {
		return "", nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: other users may read it (%v); it should be 0600", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := string(bytes.TrimSpace(data))
	if err := wire.CheckToken(token); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return token, nil
}
