/**
 * Leadership of roles on zk-lock's lock engine: each role is a MUTEX queue of
 * ephemeral sequential nodes, the lowest node leads, and its creation zxid is the
 * leadership's fencing token.
 */
@NullMarked
package dev.zklock.leader;

import org.jspecify.annotations.NullMarked;
