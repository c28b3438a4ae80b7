//! Who made the model and what its licence allows, for VRM 1.0 and 0.x.

use serde::Serialize;

use crate::schema::{vrm0, vrmc_vrm};

/// Model meta: a common part plus the licence in the terms of the file's VRM version.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// Model name (1.0 `name`, 0.x `title`; empty when a 0.x file has none).
    pub name: String,
    /// Model version string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Authors (1.0 `authors`; 0.x `author` as a one-element list, empty when absent).
    pub authors: Vec<String>,
    /// Contact information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact_information: Option<String>,
    /// References (1.0 `references`; 0.x `reference` as a one-element list).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// The licence (flattened into the meta object when serialised).
    #[serde(flatten)]
    pub license: License,
}

/// The licence fields, kept in the vocabulary of the file (values as written, so
/// unknown enum values survive; absent fields take the spec's default where it has one).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum License {
    /// VRM 1.0 (`VRMC_vrm.meta`).
    Vrm1(License1),
    /// VRM 0.x (`VRM.meta`).
    Vrm0(License0),
}

/// VRM 1.0 licence fields (defaults from the 1.0 schema where absent).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct License1 {
    pub license_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copyright_information: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_party_licenses: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_license_url: Option<String>,
    pub avatar_permission: String,
    pub commercial_usage: String,
    pub credit_notation: String,
    pub allow_redistribution: bool,
    pub modification: String,
    pub allow_excessively_violent_usage: bool,
    pub allow_excessively_sexual_usage: bool,
    pub allow_political_or_religious_usage: bool,
    pub allow_antisocial_or_hate_usage: bool,
}

/// VRM 0.x licence fields (original spellings; absent fields are `None`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct License0 {
    pub license_name: Option<String>,
    pub other_license_url: Option<String>,
    pub allowed_user_name: Option<String>,
    pub violent_ussage_name: Option<String>,
    pub sexual_ussage_name: Option<String>,
    pub commercial_ussage_name: Option<String>,
    pub other_permission_url: Option<String>,
}

impl Meta {
    /// From VRM 1.0 meta.
    pub fn from_v1(m: &vrmc_vrm::Meta) -> Self {
        Self {
            name: m.name.clone(),
            version: m.version.clone(),
            authors: m.authors.clone(),
            contact_information: m.contact_information.clone(),
            references: m.references.clone(),
            license: License::Vrm1(License1 {
                license_url: m.license_url.clone(),
                copyright_information: m.copyright_information.clone(),
                third_party_licenses: m.third_party_licenses.clone(),
                other_license_url: m.other_license_url.clone(),
                avatar_permission: or(&m.avatar_permission, "onlyAuthor"),
                commercial_usage: or(&m.commercial_usage, "personalNonProfit"),
                credit_notation: or(&m.credit_notation, "required"),
                allow_redistribution: m.allow_redistribution.unwrap_or(false),
                modification: or(&m.modification, "prohibited"),
                allow_excessively_violent_usage: m.allow_excessively_violent_usage.unwrap_or(false),
                allow_excessively_sexual_usage: m.allow_excessively_sexual_usage.unwrap_or(false),
                allow_political_or_religious_usage: m
                    .allow_political_or_religious_usage
                    .unwrap_or(false),
                allow_antisocial_or_hate_usage: m.allow_antisocial_or_hate_usage.unwrap_or(false),
            }),
        }
    }

    /// From VRM 0.x meta (absent meta gives empty fields).
    pub fn from_v0(m: Option<&vrm0::Meta>) -> Self {
        let d = vrm0::Meta::default();
        let m = m.unwrap_or(&d);
        Self {
            name: m.title.clone().unwrap_or_default(),
            version: m.version.clone(),
            authors: m.author.iter().filter(|a| !a.is_empty()).cloned().collect(),
            contact_information: m.contact_information.clone(),
            references: m
                .reference
                .iter()
                .filter(|a| !a.is_empty())
                .cloned()
                .collect(),
            license: License::Vrm0(License0 {
                license_name: m.license_name.clone(),
                other_license_url: m.other_license_url.clone(),
                allowed_user_name: m.allowed_user_name.clone(),
                violent_ussage_name: m.violent_ussage_name.clone(),
                sexual_ussage_name: m.sexual_ussage_name.clone(),
                commercial_ussage_name: m.commercial_ussage_name.clone(),
                other_permission_url: m.other_permission_url.clone(),
            }),
        }
    }

    /// Whether the licence lets anyone redistribute the file unmodified: 1.0
    /// `allowRedistribution`, or a 0.x `licenseName` other than
    /// `Redistribution_Prohibited` / `Other` (which needs a human to read the URL).
    pub fn allows_redistribution(&self) -> bool {
        match &self.license {
            License::Vrm1(l) => l.allow_redistribution,
            License::Vrm0(l) => matches!(
                l.license_name.as_deref(),
                Some(
                    "CC0"
                        | "CC_BY"
                        | "CC_BY_NC"
                        | "CC_BY_SA"
                        | "CC_BY_NC_SA"
                        | "CC_BY_ND"
                        | "CC_BY_NC_ND"
                )
            ),
        }
    }
}

fn or(v: &Option<String>, default: &str) -> String {
    v.clone().unwrap_or_else(|| default.to_string())
}
