package schema

// Severity is the OpenTelemetry log severity number: 1-4 TRACE, 5-8 DEBUG,
// 9-12 INFO, 13-16 WARN, 17-20 ERROR, 21-24 FATAL; 0 is unspecified.
type Severity int32

const (
	SeverityUnspecified Severity = 0
	SeverityTrace       Severity = 1
	SeverityDebug       Severity = 5
	SeverityInfo        Severity = 9
	SeverityWarn        Severity = 13
	SeverityError       Severity = 17
	SeverityFatal       Severity = 21
)

// String gives the short name of the severity's range.
func (s Severity) String() string {
	switch {
	case s <= 0:
		return "UNSPECIFIED"
	case s < SeverityDebug:
		return "TRACE"
	case s < SeverityInfo:
		return "DEBUG"
	case s < SeverityWarn:
		return "INFO"
	case s < SeverityError:
		return "WARN"
	case s < SeverityFatal:
		return "ERROR"
	default:
		return "FATAL"
	}
}
