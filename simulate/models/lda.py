"""Latent Dirichlet allocation for SGRLD and CP-SGRLD (Patterson & Teh 2013; Fu & Zhang Sec. 4.3), with a small
synthetic LDA corpus drawn from a seed.

Expanded-mean parameterisation: theta_kw >= 0, topic k's word distribution pi_kw = theta_kw / sum_w theta_kw, prior
theta_kw ~ Gamma(beta, 1). Patterson & Teh's update (their 2013 eq. 12 for LDA; cited in docs/papers/fu_zhang.md
sec. 1), in the workbench step convention (h = their eps):

    theta_kw <- | theta_kw + (h/2) (beta - theta_kw + sum_d w_d E_{z_d | w_d, theta, alpha}[n_dkw - pi_kw n_dk.])
                  + sqrt(h theta_kw) xi_kw |,        xi_kw ~ N(0, 1),

where the documents d and their weights w_d come from the gradient estimator: SGRLD is the plain minibatch
(w_d = D/``|D_t|``, :class:`simulate.Strata` with one cluster), CP-SGRLD the stratified estimator eq.
(10) (w_d = n_i/b_i for a document of cluster i, documents clustered by k-means on their word-count vectors). The
expectation is estimated by Gibbs sampling of each document's topic assignments with the document-topic
proportions integrated out: p(z_dl = k | rest) proportional to (alpha + n_dk^{-l}) pi_{k w_dl}; ``sweeps`` sweeps per
step, the first ``burn_sweeps`` discarded, the counts of the others averaged (Patterson & Teh Sec. 4). Everything
is vectorized over chains and the documents of a minibatch (a Python loop runs over token positions and sweeps).
This fits the estimator x integrator protocol: :class:`LDAModel` supplies the Gibbs sums (it consumes random numbers
while it computes: a :class:`simulate.contracts.StochasticGradientModel`) and
``simulate.integrators.sgrld.ExpandedMeanLangevin`` is the integrator; :func:`simulate.sgrld` builds the sampler.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..estimators.strata import Strata, kmeans_strata
from ..validation import ParameterError, check_int, check_positive
from .base import ModelBase


@dataclass(frozen=True)
class LDACorpus:
    """A corpus of documents of word ids, with the topics and document-topic proportions behind them.

    Parameters
    ----------
    docs : numpy.ndarray of int, shape (D, L)
        D documents of L word ids each, in range(V).
    vocab : int
        V, the vocabulary's size.
    topics : numpy.ndarray, shape (K, V)
        Each topic's word distribution.
    doc_topics : numpy.ndarray, shape (D, K)
        Each document's topic proportions.
    """

    docs: np.ndarray
    vocab: int
    topics: np.ndarray
    doc_topics: np.ndarray

    @property
    def n_topics(self) -> int:
        """K, the number of topics."""
        return int(self.topics.shape[0])

    def counts(self) -> np.ndarray:
        """The documents' word-count vectors, the features CP-SGRLD clusters.

        Returns
        -------
        numpy.ndarray of int, shape (D, V)
        """
        D = self.docs.shape[0]
        rows = np.repeat(np.arange(D), self.docs.shape[1])
        return np.bincount(rows * self.vocab + self.docs.ravel(), minlength=D * self.vocab).reshape(D, self.vocab)


def synthetic_lda_corpus(n_docs: int = 300, n_topics: int = 4, vocab: int = 30, doc_len: int = 20,
                         alpha: float = 0.1, topic_concentration: float = 0.1, seed: int = 0) -> LDACorpus:
    """A synthetic LDA corpus: topics ~ Dir(topic_concentration), proportions ~ Dir(alpha), tokens by the LDA model.

    Parameters
    ----------
    n_docs : int, default 300
        D >= 1.
    n_topics : int, default 4
        K >= 1.
    vocab : int, default 30
        V >= 2.
    doc_len : int, default 20
        L >= 1, tokens per document.
    alpha : float, default 0.1
        The symmetric Dirichlet parameter of the document-topic proportions, > 0.
    topic_concentration : float, default 0.1
        The symmetric Dirichlet parameter of the topics' word distributions, > 0.
    seed : int, default 0
        The seed of the corpus' generator.

    Returns
    -------
    LDACorpus
        With the topics and proportions it was drawn from.

    Raises
    ------
    ParameterError
        For a size or concentration out of its range.
    """
    n_docs = check_int("n_docs", n_docs, 1)
    K = check_int("n_topics", n_topics, 1)
    V = check_int("vocab", vocab, 2)
    L = check_int("doc_len", doc_len, 1)
    alpha = check_positive("alpha", alpha)
    conc = check_positive("topic_concentration", topic_concentration)
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(V, conc), size=K)
    props = rng.dirichlet(np.full(K, alpha), size=n_docs)
    z = (rng.random((n_docs, L, 1)) > np.cumsum(props, axis=1)[:, None, :]).sum(axis=2)
    z = np.minimum(z, K - 1)
    cw = np.cumsum(topics, axis=1)
    u = rng.random((n_docs, L))
    docs = (u[..., None] > cw[z]).sum(axis=2)
    return LDACorpus(np.minimum(docs, V - 1).astype(np.int64), V, topics, props)


@dataclass
class LDAModel(ModelBase):
    """Latent Dirichlet allocation in Patterson & Teh's expanded-mean parameterisation, for SGRLD and CP-SGRLD.

    theta has shape (M, K*V), row-major in (k, w), theta_kw >= 0; topic k's word distribution is pi_kw =
    theta_kw / sum_w theta_kw and the prior theta_kw ~ Gamma(beta, 1). Its minibatch gradient is a Gibbs estimate
    (module docstring), so it consumes random numbers (:class:`simulate.contracts.StochasticGradientModel`); sample
    it with :func:`simulate.sgrld`. Each document is one datum (N = D). No Lipschitz constant is stated.

    Parameters
    ----------
    corpus : LDACorpus
        The documents.
    n_topics : int
        K >= 1.
    alpha : float, default 0.1
        The document-topic Dirichlet parameter, > 0.
    beta : float, default 0.1
        The Gamma prior's shape, > 0.
    sweeps : int, default 4
        Gibbs sweeps per gradient estimate, >= 1.
    burn_sweeps : int, default 2
        Sweeps discarded first, 0 <= burn_sweeps < sweeps.

    Raises
    ------
    ParameterError
        For a parameter out of its range.

    References
    ----------
    Patterson & Teh (2013), eq. (12) and Section 4; Fu & Zhang (2017), Section 4.3 (:doc:`/papers/fu_zhang`, sec. 3).
    """

    corpus: LDACorpus
    n_topics: int
    alpha: float = 0.1
    beta: float = 0.1
    sweeps: int = 4
    burn_sweeps: int = 2

    def __post_init__(self) -> None:
        self.n_topics = check_int("n_topics", self.n_topics, 1)
        self.alpha = check_positive("alpha", self.alpha)
        self.beta = check_positive("beta", self.beta)
        self.sweeps = check_int("sweeps", self.sweeps, 1)
        self.burn_sweeps = check_int("burn_sweeps", self.burn_sweeps, 0, self.sweeps - 1)
        self.n_data = int(self.corpus.docs.shape[0])
        self.vocab = int(self.corpus.vocab)
        self.dim = self.n_topics * self.vocab
        self.grad_lipschitz = None

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior part of the expanded-mean drift, beta - theta (Patterson & Teh eq. 12).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, K*V)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, K*V)
        """
        return self.beta - theta

    def grad_log_lik(self, theta, idx):
        """Not defined: the per-document terms are Gibbs estimates.

        Parameters
        ----------
        theta : numpy.ndarray
            Ignored.
        idx : numpy.ndarray
            Ignored.

        Raises
        ------
        ParameterError
            Always: use :meth:`grad_log_lik_sum` with a generator.
        """
        raise ParameterError("LDAModel: per-document terms are Gibbs estimates; use grad_log_lik_sum(theta, idx, rng)")

    def topic_word(self, theta: np.ndarray) -> np.ndarray:
        """Each topic's word distribution pi_kw = theta_kw / sum_w theta_kw.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, K*V)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, K, V)
        """
        th = theta.reshape(theta.shape[0], self.n_topics, self.vocab)
        return th / th.sum(axis=2, keepdims=True)

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The minibatch sum sum_{d in idx[:, m]} E[n_dkw - pi_kw n_dk.], estimated by collapsed Gibbs sampling.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, K*V)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Document indices, one column per chain.
        rng : numpy.random.Generator
            The stream of the Gibbs sweeps (advanced).

        Returns
        -------
        numpy.ndarray, shape (M, K*V)
        """
        return self.grad_log_lik_weighted_sum(theta, idx, np.ones(np.shape(idx)[0]), rng)

    def grad_log_lik_weighted_sum(self, theta: np.ndarray, idx: np.ndarray, row_weights: np.ndarray,
                                  rng: np.random.Generator) -> np.ndarray:
        """The weighted sum sum_j row_weights[j] E[n_dkw - pi_kw n_dk.] over d = idx[j, m], in one Gibbs pass.

        All clusters' documents are swept together; the stratified estimator passes n_i/b_i per row
        (:class:`simulate.contracts.StochasticGradientModel`).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, K*V)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Document indices, one column per chain.
        row_weights : numpy.ndarray, shape (n,)
            The weight of each row of ``idx``.
        rng : numpy.random.Generator
            The stream of the Gibbs sweeps (advanced).

        Returns
        -------
        numpy.ndarray, shape (M, K*V)
        """
        M, K, V = theta.shape[0], self.n_topics, self.vocab
        pi = self.topic_word(theta)
        W = self.corpus.docs.take(np.asarray(idx).T, axis=0)  # (M, n, L)
        n, L = W.shape[1], W.shape[2]
        pw = pi.transpose(0, 2, 1)[np.arange(M)[:, None, None], W]  # (M, n, L, K)
        cum = np.cumsum(pw, axis=3)
        z = (rng.random((M, n, L, 1)) * cum[..., -1:] > cum).sum(axis=3)
        z = np.minimum(z, K - 1)
        eye = np.eye(K)
        ndk = eye[z].sum(axis=2)  # (M, n, K)
        acc = np.zeros(M * K * V)
        base = (np.arange(M) * K * V)[:, None, None]
        rw = np.broadcast_to(np.asarray(row_weights, dtype=np.float64)[None, :, None], W.shape).ravel()
        for s in range(self.sweeps):
            for pos in range(L):
                ndk -= eye[z[:, :, pos]]
                p = (self.alpha + ndk) * pw[:, :, pos, :]
                c = np.cumsum(p, axis=2)
                zn = (rng.random((M, n, 1)) * c[..., -1:] > c).sum(axis=2)
                zn = np.minimum(zn, K - 1)
                z[:, :, pos] = zn
                ndk += eye[zn]
            if s >= self.burn_sweeps:
                acc += np.bincount((base + z * V + W).ravel(), weights=rw, minlength=M * K * V)
        C = acc.reshape(M, K, V) / (self.sweeps - self.burn_sweeps)
        return (C - pi * C.sum(axis=2, keepdims=True)).reshape(M, K * V)

    def initial_theta(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """Random starting points theta_kw ~ Gamma(1, 1), a callable ``theta0`` for :func:`simulate.run`.

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        m : int
            The number of chains.

        Returns
        -------
        numpy.ndarray, shape (m, K*V)
        """
        return rng.gamma(1.0, 1.0, size=(m, self.dim))


def document_strata(corpus: LDACorpus, k: int, *, max_iter: int = 10, seed: int = 0) -> Strata:
    """k-means clusters of the documents' word-count vectors, the strata of CP-SGRLD.

    The representation is the workbench's choice; the paper does not state it.

    Parameters
    ----------
    corpus : LDACorpus
        The documents.
    k : int
        The number of clusters.
    max_iter : int, default 10
        Lloyd iterations (Fu & Zhang Sec. 3.3: a few suffice).
    seed : int, default 0
        The seed of the k-means initialisation.

    Returns
    -------
    Strata
        A partition of the D documents (:func:`simulate.kmeans_strata`).

    References
    ----------
    Fu & Zhang (2017), Sections 3.3 and 4.3 (:doc:`/papers/fu_zhang`, secs. 2-3).
    """
    return kmeans_strata(corpus.counts().astype(np.float64), k, max_iter=max_iter, seed=seed)


def topic_error(model: LDAModel, theta: np.ndarray, topics: np.ndarray) -> np.ndarray:
    """The mean total-variation distance between estimated and true topics under the best matching, per chain.

    All K! matchings of the topics are tried (vectorised), so K <= 7.

    Parameters
    ----------
    model : LDAModel
        The model (its K and V).
    theta : numpy.ndarray, shape (M, K*V) or (K*V,)
        The chains' states.
    topics : array_like, shape (K, V)
        The true topics.

    Returns
    -------
    numpy.ndarray, shape (M,)

    Raises
    ------
    ParameterError
        When K > 7.
    """
    K = model.n_topics
    if K > 7:
        raise ParameterError(f"topic_error enumerates K! matchings; needs n_topics <= 7, got {K}")
    pi = model.topic_word(np.atleast_2d(theta))
    dist = 0.5 * np.abs(pi[:, :, None, :] - np.asarray(topics)[None, None, :, :]).sum(axis=3)  # (M, K, K)
    perms = np.array(list(itertools.permutations(range(K))))
    cost = dist[:, np.arange(K)[None, :], perms].mean(axis=2)  # (M, P)
    return cost.min(axis=1)


__all__ = ["LDACorpus", "LDAModel", "document_strata", "synthetic_lda_corpus", "topic_error"]
