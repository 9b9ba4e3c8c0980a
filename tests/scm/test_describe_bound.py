"""``describe_bound``: the vacuous-bound verdict of a fitted SCM, at its boundary."""

import numpy as np
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, describe_bound

pytestmark = pytest.mark.filterwarnings("ignore::widefs.exceptions.HeuristicBoundWarning")


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 8))
    y = (X[:, 0] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("cls", [SampleCompressionSCM, OccamSCM])
def test_bound_and_training_risk_are_the_models(cls):
    model = cls().fit(*data())
    summary = describe_bound(model, majority_error=0.5)
    assert summary.bound == model.risk_bound_
    assert summary.training_risk == model.empirical_risk_
    assert summary.vacuous == (model.risk_bound_ >= 0.5)


def test_pac_bayes_reports_the_gibbs_risk_its_bound_covers():
    model = PACBayesSCM().fit(*data())
    summary = describe_bound(model, majority_error=0.5)
    assert summary.training_risk == model.gibbs_risk_
    assert summary.bound == model.risk_bound_


def test_vacuous_exactly_at_the_majority_error():
    model = SampleCompressionSCM().fit(*data())
    b = model.risk_bound_
    assert describe_bound(model, b).vacuous  # equal: certifies nothing
    assert not describe_bound(model, np.nextafter(b, 1)).vacuous
    assert describe_bound(model, np.nextafter(b, 0)).vacuous
