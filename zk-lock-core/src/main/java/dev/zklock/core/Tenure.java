package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * One tenure of a {@link LocalCohort}: the one node this process keeps in a key's
 * queue, from its creation until its deletion, and the local holders that share
 * it. Every field changes under the cohort's lock, in the {@link TenureWatch}'s
 * callbacks too. {@link #node} and {@link #ended} are volatile as well, for the
 * cohort's quick looks without the lock ({@code isAnswered}, {@code listQueue}),
 * and so is what the watch learns.
 */
final class Tenure {

	/** No listing asked for yet. */
	static final int UNWATCHED = 0;

	/** A listing with a watch asked for, not answered yet. */
	static final int REQUESTED = 1;

	/** The queue is listed and watched: {@link #othersWait} is known. */
	static final int WATCHED = 2;

	final NodeAttempt attempt;

	final boolean tryOnce;

	volatile @Nullable LockNode node;

	long grantedNanos;

	int passes;

	volatile boolean ended;

	// a READ was placed at this node by its WRITE holder: the node must go with that holder
	boolean last;

	final List<LocalAttempt> holders = new ArrayList<>(1);

	volatile int watch = UNWATCHED;

	// another process waits (READ: a writer waits); once seen, for the rest of the tenure
	volatile boolean othersWait;

	// the queue changed and is being listed again: no pass until the listing is back
	volatile boolean suspect;

	Tenure(NodeAttempt attempt, boolean tryOnce) {
		this.attempt = attempt;
		this.tryOnce = tryOnce;
	}

	boolean isHeld() {
		return this.node != null && !this.ended;
	}

	/**
	 * Whether the watch vouches that nobody else waits, so that passes are not
	 * bounded.
	 */
	boolean isAlone() {
		return this.watch == WATCHED && !this.othersWait && !this.suspect;
	}

}
