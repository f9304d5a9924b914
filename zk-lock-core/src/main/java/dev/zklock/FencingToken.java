package dev.zklock;

/**
 * The fencing token of a held lock: the creation zxid of the holder's lock node.
 * Successive holders of a lock get strictly increasing tokens, so a resource that
 * remembers the largest token it accepted can reject a write from a holder that
 * lost the lock without noticing.
 * <p>
 * A {@code @DistributedLock} method may declare one parameter
 * of this type; callers pass {@code null} and the lock interceptor fills in the
 * token of the lock it acquired.
 *
 * @param value the token, always positive
 */
public record FencingToken(long value) implements Comparable<FencingToken> {

	/**
	 * Check the value.
	 */
	public FencingToken {
		if (value <= 0) {
			throw new IllegalArgumentException("A fencing token must be positive, got " + value);
		}
	}

	/**
	 * Whether this token is newer than the given one.
	 * @param other the other token
	 * @return {@code true} when this token was issued later
	 */
	public boolean isNewerThan(FencingToken other) {
		return this.value > other.value;
	}

	@Override
	public int compareTo(FencingToken other) {
		return Long.compare(this.value, other.value);
	}

	@Override
	public String toString() {
		return Long.toString(this.value);
	}

}
