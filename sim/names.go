package sim

import "strings"

// The vocabularies below are functions, not package variables: the package
// keeps no globals.

func businessNames() []string {
	return []string{"checkout", "cart", "payment", "inventory", "catalog", "user", "auth",
		"search", "shipping", "notification", "recommend", "pricing", "order", "review", "ads",
		"currency", "fraud", "loyalty", "tax", "account", "profile", "session", "billing",
		"promotion", "wishlist", "media", "ledger", "quote", "booking", "delivery"}
}

func entryNames() []string {
	return []string{"frontend", "api-gateway", "web-bff", "edge-gateway", "storefront", "mobile-bff"}
}

func nameSuffixes() []string { return []string{"", "-service", "-svc", "-api", ""} }

// externalFor names the third-party API a service of this base name would call.
func externalFor(base string) string {
	switch base {
	case "payment", "billing", "checkout", "ledger":
		return "payment-provider-api"
	case "notification":
		return "sms-gateway"
	case "shipping", "delivery":
		return "carrier-rates-api"
	case "currency", "pricing", "quote":
		return "fx-rates-api"
	case "tax":
		return "tax-calc-api"
	case "fraud":
		return "fraud-score-api"
	case "auth", "user", "account", "session":
		return "identity-provider"
	case "search", "catalog", "recommend":
		return "geo-api"
	}
	return "email-provider"
}

// externalHost is the host name a third-party API is reached at.
func externalHost(name string) string {
	return "api." + strings.TrimSuffix(name, "-api") + ".example.com"
}

// pascal turns "payment-provider" into "PaymentProvider".
func pascal(s string) string {
	var b strings.Builder
	up := true
	for _, c := range s {
		if c == '-' || c == '_' || c == '.' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteRune(c)
	}
	return b.String()
}

// camel turns "payment-provider" into "paymentProvider".
func camel(s string) string {
	p := pascal(s)
	if p == "" {
		return p
	}
	return strings.ToLower(p[:1]) + p[1:]
}

// baseName strips the naming suffix of a service.
func baseName(n *node) string {
	for _, s := range []string{"-service", "-svc", "-api"} {
		if strings.HasSuffix(n.name, s) && n.role == roleService {
			return strings.TrimSuffix(n.name, s)
		}
	}
	return n.name
}

// routeTemplates are HTTP routes for a resource called %s.
func routeTemplates() [][2]string {
	return [][2]string{
		{"GET", "/api/v1/%s/{id}"}, {"GET", "/api/v1/%s"}, {"POST", "/api/v1/%s"},
		{"PUT", "/api/v1/%s/{id}"}, {"GET", "/%s/search"}, {"POST", "/api/v2/%s/validate"},
		{"DELETE", "/api/v1/%s/{id}"}, {"GET", "/internal/%s/batch"},
	}
}

// grpcVerbs are gRPC method names.
func grpcVerbs() []string {
	return []string{"Get", "List", "Create", "Reserve", "Validate", "Update", "Lookup"}
}
