@file:JvmName("LeaderElectionExtensions")

package dev.zklock

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runInterruptible
import java.time.Duration

// how long one blocking wait on the I/O dispatcher lasts before it is begun again
private val WAIT_SLICE: Duration = Duration.ofSeconds(10)

/**
 * Suspends until this instance leads [role], as
 * [LeaderElection.awaitLeadership] with a timeout does, but without a deadline
 * and without blocking the caller's thread: the wait runs on
 * [Dispatchers.IO], and cancelling the caller ends it.
 *
 * @throws IllegalArgumentException when the role is not one of this election's
 */
suspend fun LeaderElection.awaitLeadership(role: String) {
    while (!runInterruptible(Dispatchers.IO) { awaitLeadership(role, WAIT_SLICE) }) {
        // not yet: wait again
    }
}
