package platform

import "testing"

// bandsPlatform has classes of unusual widths: 1000 wide, 10 wide, a single
// priority, and bands at both ends of Batch's 0–9999 range.
const bandsPlatform = `
pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
teams: [{name: solo, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]}]
classes:
  - {name: top, priority: {min: 9000, max: 9999}}
  - {name: narrow, priority: {min: 4000, max: 4009}}
  - {name: single, priority: {min: 3000, max: 3000}}
  - {name: bottom, priority: {min: 0, max: 98}}
  - {name: wide, priority: {min: 99, max: 2999}}
`

// TestClassForPriorityRoundTrips: every request priority of every class maps
// into the class's band, and back to the same class.
func TestClassForPriorityRoundTrips(t *testing.T) {
	platforms := map[string]*Platform{
		"the default":                  Default(),
		"unusual band widths":          mustParse(t, []byte(bandsPlatform)),
		"the fair-share test platform": mustParse(t, readTestdata(t, "fairshare.yaml")),
	}
	for name, p := range platforms {
		t.Run(name, func(t *testing.T) {
			for _, c := range p.Classes {
				prev := -1
				for rp := 0; rp <= RequestPriorityMax; rp++ {
					sp := c.SchedulingPriority(rp)
					if !c.Priority.Contains(sp) {
						t.Fatalf("%s: request priority %d maps to %d, outside the band %d-%d", c.Name, rp, sp, c.Priority.Min, c.Priority.Max)
					}
					if sp < prev {
						t.Fatalf("%s: request priority %d maps to %d, below %d for %d", c.Name, rp, sp, prev, rp-1)
					}
					prev = sp
					back, ok := p.ClassForPriority(sp)
					if !ok || back.Name != c.Name {
						t.Fatalf("%s: ClassForPriority(%d) = %q, %v; want %q", c.Name, sp, back.Name, ok, c.Name)
					}
				}
				// The ends of the request range reach the ends of the band.
				if lo, hi := c.SchedulingPriority(0), c.SchedulingPriority(RequestPriorityMax); lo != c.Priority.Min || hi != c.Priority.Max {
					t.Errorf("%s: request priorities 0 and %d map to %d and %d, want %d and %d",
						c.Name, RequestPriorityMax, lo, hi, c.Priority.Min, c.Priority.Max)
				}
				// Out-of-range requests are clamped to the band.
				if lo, hi := c.SchedulingPriority(-7), c.SchedulingPriority(150); lo != c.Priority.Min || hi != c.Priority.Max {
					t.Errorf("%s: request priorities -7 and 150 map to %d and %d, want the band ends %d and %d",
						c.Name, lo, hi, c.Priority.Min, c.Priority.Max)
				}
			}
		})
	}
}

// TestSchedulingPriorityOfTheDefaultBands: the default bands are 100 wide
// (max − min = 99 = RequestPriorityMax), so request priority p maps to
// min + p × 99 / 99 = min + p.
func TestSchedulingPriorityOfTheDefaultBands(t *testing.T) {
	p := Default()
	cases := []struct {
		name  string
		class string
		rp    int
		want  int
	}{
		{"production at the default priority 50 runs at 900 + 50", "production", DefaultRequestPriority, 950},
		{"production at 0 runs at its band's bottom", "production", 0, 900},
		{"production at 99 runs at its band's top", "production", 99, 999},
		{"research at 17 runs at 500 + 17", "research", 17, 517},
		{"sweep at 99 runs at 100 + 99", "sweep", 99, 199},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := p.Class(tc.class)
			if got := c.SchedulingPriority(tc.rp); got != tc.want {
				t.Errorf("SchedulingPriority(%d) = %d, want %d", tc.rp, got, tc.want)
			}
		})
	}
	// In a band 10 wide (4000-4009: max − min = 9), p maps to
	// 4000 + p × 9 / 99, rounded down: 10 → 4000 + 90/99 = 4000, 11 → 4001, 99 → 4009.
	narrow, _ := mustParse(t, []byte(bandsPlatform)).Class("narrow")
	for rp, want := range map[int]int{10: 4000, 11: 4001, 50: 4004, 99: 4009} {
		if got := narrow.SchedulingPriority(rp); got != want {
			t.Errorf("narrow band: SchedulingPriority(%d) = %d, want %d", rp, got, want)
		}
	}
}
