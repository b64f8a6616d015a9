"""Parameter checks at less cost: scikit-learn's, each read and run once."""

from __future__ import annotations

from sklearn.utils._param_validation import validate_parameter_constraints

#: Each class's parameter names, as scikit-learn reads them from ``__init__``'s signature.
_NAMES: dict[type, tuple[str, ...]] = {}

#: The types of parameter values whose check is remembered (immutable, so a value checked
#: cannot change after).
_SCALARS = (type(None), bool, int, float, str)

#: (class, parameter, type, value) of the plain values checked and found valid; the type
#: too, so that True and 1 are told apart.
_CHECKED: set[tuple] = set()

#: How many checked values are remembered before they are forgotten at once.
_MOST_CHECKED = 4096


class ParamsCheckedOnce:
    """Mixed in before ``BaseEstimator``. scikit-learn reads the parameters' names from
    ``__init__``'s signature at every ``get_params``, and builds every constraint again at
    each fit's check: together more than a small fit's search. Here the names are read once
    per class, and a plain value (None, a bool, a number or a string) found valid for a
    parameter is not checked again; other values are checked at every fit, as before."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        names = _NAMES.get(cls)
        if names is None:
            names = _NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    def _validate_params(self) -> None:
        cls = type(self)
        unchecked = {name: value for name, value in self.get_params(deep=False).items()
                     if type(value) not in _SCALARS
                     or (cls, name, type(value), value) not in _CHECKED}
        if not unchecked:
            return
        validate_parameter_constraints(self._parameter_constraints, unchecked,
                                       caller_name=cls.__name__)
        if len(_CHECKED) > _MOST_CHECKED:
            _CHECKED.clear()
        _CHECKED.update((cls, name, type(value), value) for name, value in unchecked.items()
                        if type(value) in _SCALARS)
