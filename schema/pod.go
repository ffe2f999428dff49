package schema

import "strings"

// PodTemplate is the template hash of a Deployment's pod name
// (NAME-HASH-SUFFIX, HASH 6 to 10 lower-case letters and digits with at
// least one digit, SUFFIX 5 of them), or "".
func PodTemplate(pod string) string {
	i := strings.LastIndexByte(pod, '-')
	if i < 0 || len(pod)-i-1 != 5 || !lowerAlnum(pod[i+1:]) {
		return ""
	}
	j := strings.LastIndexByte(pod[:i], '-')
	if j <= 0 {
		return ""
	}
	h := pod[j+1 : i]
	if len(h) < 6 || len(h) > 10 || !lowerAlnum(h) || !strings.ContainsAny(h, "0123456789") {
		return ""
	}
	return h
}

func lowerAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
