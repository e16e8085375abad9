package ingest

import (
	"fmt"
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirent is one name in a folder as getdents gives it: the name and its
// kind (fs.ModeDir, fs.ModeSymlink, 0 for a regular file, ModeIrregular for
// anything else).
type dirent struct {
	name string
	mode fs.FileMode
}

func (d dirent) Name() string      { return d.name }
func (d dirent) IsDir() bool       { return d.mode&fs.ModeDir != 0 }
func (d dirent) Type() fs.FileMode { return d.mode }

// readDirents lists the folder open as fd (from its start), as
// os.File.ReadDir does but without an allocation per name: the names are
// views of *buf, which it grows to hold the whole folder, and are valid
// only until *buf is used again — clone a name that must outlive the
// folder's walk. "." and ".." are left out. A name of unknown kind (a
// filesystem that does not fill d_type) is lstat'ed; one that cannot be
// (but for having vanished) fails the listing.
func readDirents(fd int, buf *[]byte) ([]dirent, error) {
	if cap(*buf) < 64<<10 {
		*buf = make([]byte, 0, 64<<10)
	}
	b := (*buf)[:0]
	for {
		if cap(b)-len(b) < 16<<10 {
			b = append(b, make([]byte, cap(b))...)[:len(b)]
		}
		n, err := unix.Getdents(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			*buf = b
			return nil, err
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	*buf = b
	// struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
	const nameOff = 19
	var out []dirent
	for off := 0; off+nameOff <= len(b); {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[off+16])))
		if reclen < nameOff || off+reclen > len(b) {
			break // a damaged record: what was read so far stands
		}
		typ := b[off+18]
		rec := b[off+nameOff : off+reclen]
		l := 0
		for l < len(rec) && rec[l] != 0 {
			l++
		}
		off += reclen
		if l == 0 || (l == 1 && rec[0] == '.') || (l == 2 && rec[0] == '.' && rec[1] == '.') {
			continue
		}
		name := unsafe.String(&rec[0], l)
		var mode fs.FileMode
		switch typ {
		case unix.DT_REG:
		case unix.DT_DIR:
			mode = fs.ModeDir
		case unix.DT_LNK:
			mode = fs.ModeSymlink
		case unix.DT_UNKNOWN:
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if err == unix.ENOENT {
					continue // removed since the folder was read
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFREG:
			case unix.S_IFDIR:
				mode = fs.ModeDir
			case unix.S_IFLNK:
				mode = fs.ModeSymlink
			default:
				mode = fs.ModeIrregular
			}
		default:
			mode = fs.ModeIrregular
		}
		out = append(out, dirent{name: name, mode: mode})
	}
	return out, nil
}
