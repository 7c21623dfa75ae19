package platform

// Lookups on a platform: classes, teams and pools by name, and their names in
// declaration order.

// Class returns the class named name.
func (p *Platform) Class(name string) (Class, bool) {
	for _, c := range p.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return Class{}, false
}

// ClassNames returns the class names in declaration order.
func (p *Platform) ClassNames() []string {
	out := make([]string, len(p.Classes))
	for i, c := range p.Classes {
		out[i] = c.Name
	}
	return out
}

// ClassForPriority returns the class whose band holds the scheduling
// priority sp. Bands never overlap in a valid platform, so the answer is
// unique; it is how observers recover a job's class from Batch events, which
// carry no tags.
func (p *Platform) ClassForPriority(sp int) (Class, bool) {
	for _, c := range p.Classes {
		if c.Priority.Contains(sp) {
			return c, true
		}
	}
	return Class{}, false
}

// Team returns the team named name.
func (p *Platform) Team(name string) (Team, bool) {
	for _, t := range p.Teams {
		if t.Name == name {
			return t, true
		}
	}
	return Team{}, false
}

// TeamNames returns the team names in declaration order.
func (p *Platform) TeamNames() []string {
	out := make([]string, len(p.Teams))
	for i, t := range p.Teams {
		out[i] = t.Name
	}
	return out
}

// PoolInstances returns the pool capacity of instanceType (0 when the type is
// not in the pool).
func (p *Platform) PoolInstances(instanceType string) int {
	for _, pool := range p.Pools {
		if pool.InstanceType == instanceType {
			return pool.Instances
		}
	}
	return 0
}

// TotalInstances is the capacity of all pools together, the NUM_INSTANCES
// limit of a fair-share service environment.
func (p *Platform) TotalInstances() int {
	n := 0
	for _, pool := range p.Pools {
		n += pool.Instances
	}
	return n
}

// InstanceTypes returns the pool's instance types in declaration order.
func (p *Platform) InstanceTypes() []string {
	out := make([]string, len(p.Pools))
	for i, pool := range p.Pools {
		out[i] = pool.InstanceType
	}
	return out
}

func (p *Platform) hasPool(instanceType string) bool {
	for _, pool := range p.Pools {
		if pool.InstanceType == instanceType {
			return true
		}
	}
	return false
}
