use order_desk::{cents, Desk, Order};

mod report;

fn main() {
    let mut desk = Desk::new();
    desk.add(Order::new(1, "ada", cents!(12)));
    desk.add(Order::new(2, "grace", cents!(80)));
    desk.add(Order::new(3, "alan", cents!(45)));

    match order_desk::biggest(desk.orders()) {
        Ok(Some(id)) => println!("biggest: order {id}"),
        Ok(None) => println!("no orders"),
        Err(e) => println!("biggest: {e}"),
    }
    match desk.settle("order 2 arrived broken, I want half of it back") {
        Ok(said) => println!("settled: {said}"),
        Err(e) => println!("settle: {e}"),
    }
    for line in desk.log() {
        println!("log: {line}");
    }
    println!("{}", crate::report::summary(&desk));
}
