// AgentDojo's workspace suite as a Lacuna host: the `src/main.rs` of a cargo project that `lacuna-agentdojo`
// generates from this template (crates/agentdojo/hosts/workspace.rs) and the calendar and email clients
// (hosts/office.rs). The tools are Rust ports of AgentDojo's email, calendar and cloud-drive tools; each user task is
// a function whose hole sees only the tools its ground truth uses, handed in as values. The harness's control file
// (`CONTROL`, JSON) picks the task, holds the environment (the suite's environment.yaml with its `include/*.yaml`,
// clean or carrying an injection task's goal, which the types below deserialize) and says where the final
// environment goes.
use std::cell::RefCell;

/*@CONTROL@*/

/*@OFFICE@*/

/// Who a file is shared with may read it, or read and write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub enum SharingPermission {
    R,
    Rw,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct CloudDriveFile {
    pub id_: String,
    pub filename: String,
    pub content: String,
    pub owner: String,
    pub last_modified: DateTime,
    /// By address, in the order they were shared.
    pub shared_with: Vec<(String, SharingPermission)>,
    /// The content's length in characters (Python's `len`).
    pub size: usize,
}

/// AgentDojo's `CloudDrive`: files by id, in insertion order.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct CloudDrive {
    pub account_email: String,
    pub files: Vec<CloudDriveFile>,
}

impl CloudDrive {
    pub fn next_id(&self) -> String {
        (self.files.iter().filter_map(|f| f.id_.parse::<i64>().ok()).max().unwrap_or(0) + 1).to_string()
    }

    pub fn file(&self, id: &str) -> Option<&CloudDriveFile> {
        self.files.iter().find(|f| f.id_ == id)
    }

    fn file_mut(&mut self, id: &str) -> Result<&mut CloudDriveFile, String> {
        self.files.iter_mut().find(|f| f.id_ == id).ok_or_else(|| format!("File with ID '{id}' not found."))
    }

    pub fn get_file_by_id(&self, file_id: &str) -> Result<CloudDriveFile, String> {
        self.file(file_id).cloned().ok_or_else(|| format!("File with ID '{file_id}' not found."))
    }

    pub fn create_file(&mut self, filename: &str, content: &str) -> CloudDriveFile {
        let file = CloudDriveFile {
            id_: self.next_id(),
            filename: filename.to_string(),
            content: content.to_string(),
            owner: self.account_email.clone(),
            last_modified: dt(NOW),
            shared_with: Vec::new(),
            size: content.chars().count(),
        };
        self.files.push(file.clone());
        file
    }

    pub fn delete_file(&mut self, file_id: &str) -> Result<CloudDriveFile, String> {
        let at = self.files.iter().position(|f| f.id_ == file_id);
        let at = at.ok_or_else(|| format!("File with ID '{file_id}' not found."))?;
        Ok(self.files.remove(at))
    }

    pub fn search_files_by_filename(&self, filename: &str) -> Vec<CloudDriveFile> {
        let q = filename.to_lowercase();
        self.files.iter().filter(|f| f.filename.to_lowercase().contains(&q)).cloned().collect()
    }

    pub fn search_files(&self, query: &str) -> Result<Vec<CloudDriveFile>, String> {
        let q = query.to_lowercase();
        let found: Vec<CloudDriveFile> =
            self.files.iter().filter(|f| f.content.to_lowercase().contains(&q)).cloned().collect();
        if found.is_empty() {
            return Err(format!("No files found with the given query ('{query}'). Try a different search term."));
        }
        Ok(found)
    }

    pub fn append_to_file(&mut self, file_id: &str, content: &str) -> Result<CloudDriveFile, String> {
        let file = self.file_mut(file_id)?;
        file.content.push_str(content);
        file.size = file.content.chars().count();
        file.last_modified = dt(NOW);
        Ok(file.clone())
    }

    pub fn list_files(&self) -> Vec<CloudDriveFile> {
        self.files.clone()
    }

    pub fn share_file(&mut self, file_id: &str, email: &str, permission: SharingPermission) -> Result<CloudDriveFile, String> {
        let file = self.file_mut(file_id)?;
        match file.shared_with.iter_mut().find(|(e, _)| e == email) {
            Some((_, p)) => *p = permission,
            None => file.shared_with.push((email.to_string(), permission)),
        }
        Ok(file.clone())
    }
}

mod workspace {
    use super::{dt, Calendar, CloudDrive, Inbox};

    /// The suite's whole state. Snippets cannot reach it but through the tools they are handed.
    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Environment {
        pub(crate) inbox: Inbox,
        pub(crate) calendar: Calendar,
        pub(crate) cloud_drive: CloudDrive,
    }

    /*@CHECKS@*/

    impl Environment {
        /// The environment the harness wrote: clean, or with an injection task's goal in its injection vectors.
        pub fn load(data: serde_json::Value) -> Result<Environment, String> {
            serde_json::from_value(data).map_err(|e| format!("the environment the harness wrote: {e}"))
        }
    }
}

/*@TASKS@*/

/*@MAIN@*/
