use lacuna::{agent, HoleError};

#[derive(canary::Named)]
pub struct Widget {
    pub size: u32,
}

fn describe(widget: &Widget) -> Result<String, HoleError> {
    agent!("the widget's name and size")
}

fn main() {
    println!("{:?}", describe(&Widget { size: 3 }));
}
