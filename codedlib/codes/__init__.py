"""Gradient codes: cyclic repetition (Tandon et al.), CodedReduce trees, Reed–Solomon, streams."""
