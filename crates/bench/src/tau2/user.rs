//! The simulated user. Scripted: the user states what τ² says they want and know in one message, then the
//! conversation ends. (A user played by a model is not built yet.)

use super::Task;

/// The user's messages, in order.
pub fn scripted_messages(task: &Task) -> Vec<String> {
    let i = &task.instructions;
    let mut message = String::new();
    for part in [&i.reason_for_call, &i.known_info].into_iter().flatten() {
        if !message.is_empty() {
            message.push(' ');
        }
        message.push_str(part.trim());
    }
    vec![message]
}
