package bir

import "testing"

func TestFunction_UniqueNames(t *testing.T) {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	b.SBUF("t", Float32, 128, 64)
	b.SBUF("t_1", Float32, 128, 64)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	for _, c := range []struct{ got, want string }{
		{f.UniqueLocName("u"), "u"},
		{f.UniqueLocName("t"), "t_2"},
		{f.UniqueTensorName("t_set"), "t_set_1"},
		{f.UniqueTensorName("t"), "t"},
	} {
		if c.got != c.want {
			t.Errorf("have %q, want %q", c.got, c.want)
		}
	}
}
