//! Safe mode from flags and `lacuna.toml`'s `[policy]` table.

use anyhow::bail;
use clap::Args;
use lacuna_checker::{Grant, Policy};
use serde::Deserialize;

/// What snippets may reach. Safe mode is on unless `--unconfined` (or `unconfined = true`) says otherwise.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicyArgs {
    /// Grant snippets a capability safe mode denies by default: `time` (the clock, `thread::sleep`). Repeat
    /// for several.
    #[arg(long = "grant", value_name = "NAME", value_parser = parse_grant)]
    grant: Vec<Grant>,

    /// Take away a capability safe mode allows by default: `stdout` (printing). Repeat for several.
    #[arg(long = "deny", value_name = "NAME", value_parser = parse_grant)]
    deny: Vec<Grant>,

    /// Turn safe mode off: snippets may then use files, the network, processes, the environment and `unsafe`,
    /// with the full authority of this process. For trusted experiments only; never with a hosted model.
    #[arg(long)]
    unconfined: bool,
}

impl PolicyArgs {
    /// The same flags again, for a child `lacuna` process.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for g in &self.grant {
            args.extend(["--grant".to_owned(), g.name().to_owned()]);
        }
        for d in &self.deny {
            args.extend(["--deny".to_owned(), d.name().to_owned()]);
        }
        if self.unconfined {
            args.push("--unconfined".to_owned());
        }
        args
    }
}

/// `[policy]` in lacuna.toml.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PolicyConfig {
    #[serde(default)]
    pub grant: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    #[serde(default)]
    pub unconfined: bool,
    /// Models (`agent!(name, ..)`) that run where classified data may go (holes inside `Classified::map`).
    #[serde(default)]
    pub local_models: Vec<String>,
    /// Third-party crates (or modules of them, `tokio::time`) snippets may name: a cargo project's dependencies.
    #[serde(default)]
    pub crates: Vec<String>,
}

impl PolicyConfig {
    /// `policy` with this table's grants, denials, local models and crates; `origin` names the table in errors.
    pub fn apply(&self, policy: Policy, origin: &str) -> anyhow::Result<Policy> {
        let mut policy = policy;
        for name in &self.grant {
            policy = policy.with(parse_grant(name).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?);
        }
        for name in &self.deny {
            policy = policy.without(parse_grant(name).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?);
        }
        let policy = self.local_models.iter().fold(policy, |p, m| p.with_local_model(m));
        Ok(self.crates.iter().fold(policy, |p, c| p.with_crate(c)))
    }
}

/// Every `[sites.N.policy]` of the config, by hole number.
pub fn site_policies(
    base: &Policy,
    config: &crate::config::Config,
) -> anyhow::Result<std::collections::BTreeMap<u32, Policy>> {
    let mut out = std::collections::BTreeMap::new();
    for (key, prompt) in &config.sites {
        if let Some(site_policy) = &prompt.policy {
            let number: u32 = key
                .parse()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| anyhow::anyhow!("[sites.{key}] in lacuna.toml: holes are numbered from 1"))?;
            out.insert(number, site(base, key, site_policy)?);
        }
    }
    Ok(out)
}

/// `[sites.N.policy]`: hole N's policy, the run's `base` with the site's grants, denials and local models.
pub fn site(base: &Policy, key: &str, config: &PolicyConfig) -> anyhow::Result<Policy> {
    if config.unconfined {
        bail!("[sites.{key}.policy] in lacuna.toml: `unconfined` turns safe mode off for a whole run, not one hole");
    }
    config.apply(base.clone(), &format!("[sites.{key}.policy] in lacuna.toml"))
}

fn parse_grant(name: &str) -> Result<Grant, String> {
    Grant::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Grant::ALL.iter().map(|g| g.name()).collect();
        format!("`{name}` is not a capability safe mode knows; one of: {}", names.join(", "))
    })
}

/// The policy flags and the configuration give (flags add to the file's grants and denials). Says so on stderr,
/// loudly, when safe mode is off.
pub fn resolve(args: &PolicyArgs, config: &PolicyConfig) -> anyhow::Result<Policy> {
    let mut grants = args.grant.clone();
    let mut denials = args.deny.clone();
    for (names, into) in [(&config.grant, &mut grants), (&config.deny, &mut denials)] {
        for name in names {
            into.push(parse_grant(name).map_err(|e| anyhow::anyhow!("[policy] in lacuna.toml: {e}"))?);
        }
    }
    if let Some(both) = grants.iter().find(|g| denials.contains(g)) {
        bail!("`{}` is both granted and denied; say one", both.name());
    }
    if args.unconfined || config.unconfined {
        eprintln!(
            "warning: safe mode is OFF (--unconfined): snippets run with this process's full authority (files, \
             network, processes, `unsafe`)"
        );
        return Ok(Policy::unconfined());
    }
    let policy = grants.into_iter().fold(Policy::default(), Policy::with);
    let policy = config.local_models.iter().fold(policy, |p, m| p.with_local_model(m));
    let policy = config.crates.iter().fold(policy, |p, c| p.with_crate(c));
    Ok(denials.into_iter().fold(policy, Policy::without))
}
