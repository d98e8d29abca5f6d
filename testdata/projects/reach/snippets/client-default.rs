// expect: rejected L0101
// Reached through a std trait: `Default::default` resolves to net's impl.
let c: net::Client = Default::default();
c.user_agent
