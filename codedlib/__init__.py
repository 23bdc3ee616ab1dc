"""codedlib: a reproducible companion to five papers on straggler-resilient distributed
gradient descent (CodedReduce, Reed–Solomon gradient codes, DSAG, LAGC, stream coded
computing). See README.md for the map from papers to notebooks and modules.

References: references.bib keys reisizadeh2022codedreduce, halbawi2018reedsolomon,
severinson2023dsag, zhang2021lagc, esfahanizadeh2022stream.
"""

__version__ = "0.1.0"
