"""Delay models and order statistics (pure numpy/scipy).

References
----------
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking 30(1), 2022, arXiv:1902.01981.
.. [RS] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving Distributed Gradient
   Descent Using Reed–Solomon Codes", IEEE ISIT, 2018, arXiv:1706.05436.
.. [DSAG] A. Severinson, E. Rosnes, S. El Rouayheb, A. Graell i Amat, "DSAG: A Mixed
   Synchronous-Asynchronous Iterative Method for Straggler-Resilient Learning", IEEE Trans.
   Communications, 2023, arXiv:2111.13877.
.. [LAGC] J. Zhang, O. Simeone, "LAGC: Lazily Aggregated Gradient Coding for Straggler-Tolerant
   and Communication-Efficient Distributed Learning", IEEE Trans. Neural Networks and
   Learning Systems 32(3), 2021, arXiv:1905.09148.
.. [SC] H. Esfahanizadeh, A. Cohen, M. Médard, "Stream Iterative Distributed Coded Computing for
   Learning Applications in Heterogeneous Systems", arXiv preprint, 2022, arXiv:2204.13195.
"""
