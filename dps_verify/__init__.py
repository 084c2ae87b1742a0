"""dps_verify — machine checks of Li, Qardaji & Su, "On Sampling, Anonymization, and
Differential Privacy" (ASIACCS 2012, "CP") and its 2011 technical report ("TR").

Data flows one way: parameters -> mechanism -> exact distribution -> privacy measure ->
verdict -> report.  See ``DEVELOPERS.md`` for the module map.
"""

__version__ = "0.1.0"
