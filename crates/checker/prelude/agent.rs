/// A typed hole: `agent!("task")` or `agent!(model, "task")`, an expression of type `Result<T, HoleError>`.
#[macro_export]
macro_rules! agent {
    ($model:ident, $task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::Some(::core::stringify!($model)), $task)
    };
    ($task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::None, $task)
    };
}
