package fulltext

// Flags. A query's "-word" leaves out the passages that hold the word
// (ParseSyntax), but technical documents write command-line options the
// same way: "pwsh -File", "tar -x", "ConvertTo-Json -Depth". A reader who
// types "default -Depth of ConvertTo-Json" asks about the option, and a
// search that left out every passage saying "depth" would leave out the
// answer. So the index keeps, beside a passage's words, the options its
// text writes (one flag term each, not counted in its length: its words
// score as they would without them), and a query's "-word" is that option,
// a word to rank, when some passage writes it; otherwise it excludes.
// -"word" always excludes.

// flagTerm is the index term of the option key (see flagKey): after a
// byte that no analyzed word holds, so that no word of any text is a flag
// term.
func flagTerm(key string) string {
	return "\x02" + key
}

// flagKey is the key of an option written "-" + w: w's leading run of
// ASCII letters, digits, "-" and "_", lower-cased, less any "-" or "_" it
// ends with; "" when w does not start with an ASCII letter ("-1" is a
// number, "- item" a list).
func flagKey[T ~string | ~[]byte](w T) string {
	if len(w) == 0 || !isLetter(w[0]) {
		return ""
	}
	n := 0
	for n < len(w) && optionByte(w[n]) {
		n++
	}
	for n > 0 && (w[n-1] == '-' || w[n-1] == '_') {
		n--
	}
	b := make([]byte, n)
	for i := range n {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}

// optionByte reports whether c may be part of an option's name: an ASCII
// letter or digit, "-" or "_".
func optionByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// eachFlag calls f with the key of every option text writes: a "-" at the
// start of the text or after a byte that is not an ASCII letter, digit,
// "-", "_" or part of a non-ASCII character (so not the "-" of
// "kube-scheduler" or the second of "--force"), followed by an ASCII
// letter.
func eachFlag(text []byte, f func(key string)) {
	for i := 0; i < len(text); i++ {
		if text[i] != '-' || i+1 >= len(text) || !isLetter(text[i+1]) {
			continue
		}
		if i > 0 && (optionByte(text[i-1]) || text[i-1] >= 0x80) {
			continue // within a word ("é-x" too)
		}
		if k := flagKey(text[i+1:]); k != "" {
			f(k)
		}
	}
}
