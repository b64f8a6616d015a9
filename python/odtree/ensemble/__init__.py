"""Optimal forests by column generation (LPBoost, MDBoost): the estimators, their master
problems and their JSON part. The public names are imported from :mod:`odtree`."""
