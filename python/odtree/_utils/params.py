"""Parameter checks at less cost: scikit-learn's, read and run once per class and setting."""

from __future__ import annotations

from functools import lru_cache

from sklearn.utils._param_validation import validate_parameter_constraints

#: Each class's parameter names, as scikit-learn reads them from ``__init__``'s signature.
_NAMES: dict[type, tuple[str, ...]] = {}

#: The types of parameter values whose check is remembered (immutable, so a value checked
#: cannot change after).
_SCALARS = (type(None), bool, int, float, str)


@lru_cache(maxsize=1024)
def _check_scalars(cls: type, items: tuple) -> None:
    """scikit-learn's check of the parameters ``items`` (name, type, value) of ``cls``; a
    setting that passes is remembered, so not checked again (one that fails is)."""
    validate_parameter_constraints(cls._parameter_constraints,
                                   {name: value for name, _, value in items},
                                   caller_name=cls.__name__)


class ParamsCheckedOnce:
    """Mixed in before ``BaseEstimator``. scikit-learn reads the parameters' names from
    ``__init__``'s signature at every ``get_params``, and builds every constraint again at
    each fit's check: together more than a small fit's search. Here the names are read once
    per class, and a setting of plain values (None, bools, numbers, strings) is checked once
    per class; other values are checked at every fit, as before."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        names = _NAMES.get(cls)
        if names is None:
            names = _NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    def _validate_params(self) -> None:
        params = self.get_params(deep=False)
        if all(type(value) in _SCALARS for value in params.values()):
            # the type too, so that True and 1 are told apart
            _check_scalars(type(self), tuple((name, type(value), value)
                                             for name, value in params.items()))
        else:
            super()._validate_params()
