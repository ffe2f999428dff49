package chfront

import (
	"encoding/binary"
	"strings"
)

// handshakeQuery is what clickhouse-go sends when an HTTP connection opens.
const handshakeQuery = "SELECT displayName(), version(), revision(), timezone()"

// isHandshake reports whether sql is the client's handshake query.
func isHandshake(sql string) bool {
	return strings.Join(strings.Fields(sql), " ") == handshakeQuery
}

// ServerInfo is what the handshake reports.
type ServerInfo struct {
	DisplayName, Version, Timezone string
}

// handshakeBlock encodes the one-row answer to the handshake query as a
// Native block in the layout of protocol revision 54460 (block info, then
// one serialization-kind byte per column), which is how the client decodes
// it. It reports revision() = 0, so that the client decodes every later
// reply at revision 0, which is what chDB's Native output is.
func handshakeBlock(info ServerInfo) []byte {
	var b []byte
	// Block info: field 1 is_overflows=false, field 2 bucket_num=-1, end.
	b = binary.AppendUvarint(b, 1)
	b = append(b, 0)
	b = binary.AppendUvarint(b, 2)
	b = binary.LittleEndian.AppendUint32(b, 0xFFFFFFFF)
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, 4) // columns
	b = binary.AppendUvarint(b, 1) // rows
	str := func(name, v string) {
		b = appendString(b, name)
		b = appendString(b, "String")
		b = append(b, 0) // no custom serialization
		b = appendString(b, v)
	}
	str("displayName()", info.DisplayName)
	str("version()", info.Version)
	b = appendString(b, "revision()")
	b = appendString(b, "UInt32")
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	str("timezone()", info.Timezone)
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
