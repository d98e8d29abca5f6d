//! Setting up the model side of `lacuna run` from flags and `lacuna.toml`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use lacuna_agent::{connect, Agent, AgentOptions, HttpOptions, ModelSettings, ModelSpec, PromptTemplate, Sampling};

use crate::config::{Config, ModelConfig, PromptConfig};

/// The agent flags of `lacuna run`.
pub struct Flags {
    pub record: Option<PathBuf>,
    pub trace: Option<PathBuf>,
    pub max_attempts: Option<u32>,
    pub retry_after_fault: bool,
    pub model_timeout: Option<u64>,
    pub system_prompt: Option<PathBuf>,
}

/// The agent for `spec` (the default model), with the named models, prompts and limits of `config`.
/// The agent for the `--model` spec, or the config's `[agent] model` when `spec` is `None`. Relative `script:` and
/// `replay:` paths and prompt files in `config` are read from `config_dir`.
pub fn build(spec: Option<&str>, flags: &Flags, config: &Config, config_dir: Option<&Path>) -> anyhow::Result<Agent> {
    let relative = |spec: ModelSpec| match (spec, config_dir) {
        (ModelSpec::Script { path }, Some(dir)) if path.is_relative() => ModelSpec::Script { path: dir.join(path) },
        (ModelSpec::Replay { path }, Some(dir)) if path.is_relative() => ModelSpec::Replay { path: dir.join(path) },
        (spec, _) => spec,
    };
    let (spec, default_spec) = match (spec, &config.agent.model) {
        (Some(spec), _) => (spec, spec.parse::<ModelSpec>()?),
        (None, Some(spec)) => (spec.as_str(), relative(spec.parse()?)),
        (None, None) => anyhow::bail!("no model: give --model or set `model` in the [agent] table of lacuna.toml"),
    };
    let agent_config = config.agent.model_config();
    let settings = |model: &ModelConfig, replay_as: Option<String>| ModelSettings {
        base_url: model.base_url.clone(),
        api_key: None,
        api_key_env: model.api_key_env.clone(),
        sampling: Sampling { temperature: model.temperature, max_tokens: model.max_tokens },
        http: HttpOptions {
            timeout: Duration::from_secs(flags.model_timeout.or(model.timeout_s).unwrap_or(120)),
            max_retries: model.max_retries.unwrap_or(HttpOptions::default().max_retries),
            ..HttpOptions::default()
        },
        record: flags.record.clone(),
        replay_as,
    };
    let default_model = connect(&default_spec, &settings(&agent_config, None))
        .with_context(|| format!("cannot set up the model `{spec}`"))?;

    let mut template = PromptTemplate::default();
    apply_prompt(&mut template, &config.agent.prompt_config(), config_dir)?;
    if let Some(path) = &flags.system_prompt {
        template.system = read_prompt(path)?;
    }
    let mut site_templates = std::collections::BTreeMap::new();
    for (key, prompt) in &config.sites {
        let site: u32 = key
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .with_context(|| format!("[sites.{key}] in lacuna.toml: holes are numbered from 1"))?;
        let mut site_template = template.clone();
        apply_prompt(&mut site_template, prompt, config_dir)?;
        site_templates.insert(site, site_template);
    }
    let options = AgentOptions {
        max_attempts: flags.max_attempts.or(config.agent.max_attempts).unwrap_or(AgentOptions::default().max_attempts),
        retry_after_fault: flags.retry_after_fault || config.agent.retry_after_fault.unwrap_or(false),
        template,
        site_templates,
    };
    let mut agent = Agent::new(default_model, options);
    for (name, model) in &config.models {
        let named_spec = model
            .model
            .as_deref()
            .with_context(|| format!("[models.{name}] in lacuna.toml needs `model = \"provider:name\"`"))?;
        let named_spec = relative(named_spec.parse()?);
        // Replaying a run replays its named models too: each answers with what it said when recorded.
        let (named_spec, replay_as) = match &default_spec {
            ModelSpec::Replay { path } => (ModelSpec::Replay { path: path.clone() }, Some(named_spec.describe())),
            _ => (named_spec, None),
        };
        let llm = connect(&named_spec, &settings(model, replay_as))
            .with_context(|| format!("cannot set up the model `{name}` ([models.{name}] in lacuna.toml)"))?;
        agent = agent.with_named_model(name, llm);
    }
    if let Some(path) = &flags.trace {
        agent = agent.with_trace(path)?;
    }
    Ok(agent)
}

fn apply_prompt(template: &mut PromptTemplate, prompt: &PromptConfig, dir: Option<&Path>) -> anyhow::Result<()> {
    if let Some(system) = &prompt.system_prompt {
        template.system = system.clone();
    }
    if let Some(path) = &prompt.system_prompt_file {
        template.system = read_prompt(&dir.map_or(path.clone(), |d| d.join(path)))?;
    }
    if let Some(context) = &prompt.context {
        template.context = Some(context.clone());
    }
    Ok(())
}

fn read_prompt(path: &std::path::Path) -> anyhow::Result<String> {
    crate::input::read("system prompt", path)
}
