// expect: rejected L0101
let c = net::Client::new();
c.user_agent.clone()
