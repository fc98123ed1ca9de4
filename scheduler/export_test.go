package scheduler

// NextDrainLimit exposes nextDrainLimit to the tests.
var NextDrainLimit = nextDrainLimit
