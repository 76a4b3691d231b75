// The per-test timeout of the simulations (scripts/sim-files.txt). They run on virtual
// clocks, so their wall time says nothing about what they test: the timeout only guards
// against a hang. `npm test` runs them at the lowest CPU priority beside the browser tests
// (scripts/test.sh), where a test alone in tens of seconds can take several times that.
export const SIM_TIMEOUT_MS = 900_000;
