"""The reproductions: the protocols that recompute the published tables and figures of kernelnb's
source texts, each beside the published numbers it is compared with.

One subpackage per source text, one module per chapter or section:

* :mod:`kernelnb.reproductions.chapelle`: O. Chapelle, *Support Vector Machines: Induction
  Principles, Adaptive Tuning and Prior Knowledge* (PhD thesis, Paris VI, 2002): ``vicinal``
  (§2.3.1), ``kpca`` (§2.2.1, Fig. 2.4), ``cleaning`` (§5.2.5, Fig. 5.5), ``invariance`` (§6.6),
  ``reweighting`` (§7.2), ``cluster_kernels`` (§7.4), ``transduction`` (§7.6), ``active``
  (ch. 8), ``regression`` (ch. 9);
* :mod:`kernelnb.reproductions.vincent`: P. Vincent, *Modèles à noyaux à structure locale* (PhD
  thesis, Université de Montréal, 2003) and Vincent & Bengio, "Kernel Matching Pursuit"
  (Machine Learning 48, 2002): ``kmp`` (the paper's Table 3, the thesis's Tables 9.1-9.2),
  ``local`` (chapters 11, 13 and 14);
* :mod:`kernelnb.reproductions.collobert`: R. Collobert, *Large Scale Machine Learning* (PhD
  thesis, Paris VI, 2004): ``hessian`` (ch. 7, Table 7.1's published numbers), ``margin`` (ch. 8,
  Fig. 8.2, Tables 8.1-8.2's published numbers).

:mod:`kernelnb.reproductions.results` writes and reads the results files in which a benchmark
keeps a protocol's output at the text's size, with its date, machine, command and settings (the
book's reproduction pages read them).

A reproduction imports the library (never the lab); the library never imports a reproduction.
Published numbers are constants named ``PUBLISHED_*`` (or ``*_PUBLISHED``), typed from the texts;
everything else is computed. The benchmarks of ``benchmarks/`` and the course notebooks run these
protocols at full and at small size.
"""
