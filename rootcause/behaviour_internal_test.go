package rootcause

import "testing"

// TestSureZ: Fisher's exact test is as sure as the normal approximation
// on many executions and far less on a handful of baseline ones.
func TestSureZ(t *testing.T) {
	// Two of three baseline executions against one of forty-two.
	z := shareZ(2, 1, 3, 42)
	if s := sureZ(z, 2, 1, 3, 42); z < 4 || s > 2.6 || s < 2.2 {
		t.Errorf("2/3 against 1/42: z %.2f, exact %.2f; want z above 4 and exact near 2.4", z, s)
	}
	// Two hundred of four hundred against one hundred of four hundred.
	z = shareZ(200, 100, 400, 400)
	if s := sureZ(z, 200, 100, 400, 400); s < 0.9*z || s > z {
		t.Errorf("200/400 against 100/400: z %.2f, exact %.2f; want them to agree", z, s)
	}
	// A rise is tested in its own direction.
	if s := sureZ(shareZ(1, 30, 40, 40), 1, 30, 40, 40); s < 5 {
		t.Errorf("1/40 against 30/40: exact z %.2f, want above 5", s)
	}
}
