package histories

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends e as one JSON object and a newline to buf. It writes the
// fields in a fixed order and never allocates for ASCII values, because the
// recorder calls it on the hot path of every client operation.
func AppendJSON(buf []byte, e *Event) []byte {
	buf = append(buf, `{"index":`...)
	buf = strconv.AppendInt(buf, e.Index, 10)
	buf = append(buf, `,"time":`...)
	buf = strconv.AppendInt(buf, e.Time, 10)
	if e.Actor == "" {
		buf = append(buf, `,"process":`...)
		buf = strconv.AppendInt(buf, int64(e.Process), 10)
	} else {
		buf = append(buf, `,"actor":`...)
		buf = appendString(buf, e.Actor)
	}
	if e.Type != typeNone {
		buf = append(buf, `,"type":"`...)
		buf = append(buf, e.Type.String()...)
		buf = append(buf, '"')
	}
	if e.F != "" {
		buf = append(buf, `,"f":`...)
		buf = appendString(buf, e.F)
	}
	if e.Format != 0 {
		buf = append(buf, `,"format":`...)
		buf = strconv.AppendUint(buf, uint64(e.Format), 10)
	}
	if e.Resource != "" {
		buf = append(buf, `,"resource":`...)
		buf = appendString(buf, e.Resource)
	}
	if e.HasToken {
		buf = append(buf, `,"token":`...)
		buf = strconv.AppendUint(buf, e.Token, 10)
	}
	if e.HasValue {
		buf = append(buf, `,"value":`...)
		buf = appendString(buf, e.Value)
	} else if e.Type == TypeOK && e.F == FRead {
		buf = append(buf, `,"value":null`...)
	}
	if e.Outcome != OutcomeNone {
		buf = append(buf, `,"outcome":"`...)
		buf = append(buf, e.Outcome.String()...)
		buf = append(buf, '"')
	}
	if e.HasHolder {
		buf = append(buf, `,"holder":`...)
		buf = strconv.AppendInt(buf, int64(e.Holder), 10)
	}
	if e.Fault != "" {
		buf = append(buf, `,"fault":`...)
		buf = appendString(buf, e.Fault)
	}
	if e.Detail != "" {
		buf = append(buf, `,"detail":`...)
		buf = appendString(buf, e.Detail)
	}
	if e.Error != "" {
		buf = append(buf, `,"error":`...)
		buf = appendString(buf, e.Error)
	}
	if e.Trace != "" {
		buf = append(buf, `,"trace":`...)
		buf = appendString(buf, e.Trace)
	}
	return append(buf, "}\n"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so that every history we write is valid JSON.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			// The character itself, not its escape: a decoded history
			// then encodes to the same bytes again.
			buf = utf8.AppendRune(buf, utf8.RuneError)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
