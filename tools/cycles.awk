# The cycle finder of tools/layers.sh (includes) and tools/calls.sh (calls):
# a depth-first search over the graph out[m, 1..nout[m]] of the nodes
# nodes[1..nn].  Each cycle is reported once, through the caller's
# cycle_found(c, path): c is "a -> b -> a", path one line "    a -> b: WHY"
# per edge, WHY being why[a, b] (empty when the caller keeps none).
function find_cycles(    i) {
    for (i = 1; i <= nn; i++)
        if (state[nodes[i]] == 0)
            visit(nodes[i])
}
function visit(m,    i, j, n, k, c, e) {
    state[m] = 1
    stack[++depth] = m
    n = nout[m]
    for (i = 1; i <= n; i++) {
        k = out[m, i]
        if (state[k] == 1) {
            c = k
            e = "    " m " -> " k ": " why[m, k]
            # stack[j] != k, so j > 1 and stack[j - 1] is on the cycle
            for (j = depth; j >= 1 && stack[j] != k; j--) {
                c = stack[j] " -> " c
                e = "    " stack[j - 1] " -> " stack[j] ": " why[stack[j - 1], stack[j]] "\n" e
            }
            c = k " -> " c
            if (!(c in seen)) {
                seen[c] = 1
                cycle_found(c, e)
            }
        } else if (state[k] == 0)
            visit(k)
    }
    depth--
    state[m] = 2
}
