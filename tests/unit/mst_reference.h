/*
 * Sequential minimum spanning trees, the references the distributed
 * algorithms are checked against. Edges are ordered by
 * ftc_weight_of(latency[i * n + j], i, j), so equal latencies break ties by
 * rank exactly as GHS does and there is one answer.
 */
#ifndef FTCOLL_TEST_MST_REFERENCE_H
#define FTCOLL_TEST_MST_REFERENCE_H

/* latency: n * n, row-major, symmetric. adjacency: n * n out, 1 on both
 * (i, j) and (j, i) for a tree edge, 0 elsewhere. */
void mst_prim(int n, const double *latency, unsigned char *adjacency);
void mst_kruskal(int n, const double *latency, unsigned char *adjacency);

#endif
