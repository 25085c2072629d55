//! Branch predictors.
use crate::params::PredictorParams;

/// Kinds of control transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    /// Conditional branch.
    Conditional,
}

/// Counts since creation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredictorStats {
    /// Branches seen.
    pub branches: u64,
}

/// A predictor.
#[derive(Clone, Debug)]
pub struct Predictor {
    params: PredictorParams,
}

impl Predictor {
    /// A predictor with `params`.
    pub fn new(params: &PredictorParams) -> Predictor {
        Predictor { params: params.clone() }
    }
}
