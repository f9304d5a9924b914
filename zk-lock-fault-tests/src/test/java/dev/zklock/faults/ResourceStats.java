package dev.zklock.faults;

/**
 * What the {@link ProtectedResource} saw on one key.
 *
 * @param key the key
 * @param sections critical sections entered (grants)
 * @param writesAccepted writes the resource applied
 * @param value the counter's final value
 * @param overlaps pairs of sections open at the same time whose holders both wrote
 * after {@code assertHeld()} passed
 * @param concurrentPairs pairs of sections open at the same time, whatever they did
 * @param staleReadsRejected reads with a stale fencing token that the resource rejected
 * @param staleRejected writes with a stale fencing token that the resource rejected
 * @param staleAccepted writes with a stale fencing token that an unfenced resource
 * applied
 * @param lostUpdates applied writes that overwrote another write made after their
 * section's read
 * @param tokenRegressions sections entered with a token not above the previous one
 * @param writesWithoutCheck writes not preceded by a passing {@code assertHeld()}
 * @param sectionsWithoutWrite sections left without a write (lock in doubt or lost,
 * interrupted, or the holder died)
 * @param openSections sections still open
 */
record ResourceStats(String key, long sections, long writesAccepted, long value, long overlaps, long concurrentPairs,
		long staleReadsRejected, long staleRejected, long staleAccepted, long lostUpdates, long tokenRegressions,
		long writesWithoutCheck, long sectionsWithoutWrite, long openSections) {

	static ResourceStats empty(String key) {
		return new ResourceStats(key, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	}

	/**
	 * The figures of two keys added up.
	 * @param other the other key's figures
	 * @return the sums, under this key
	 */
	ResourceStats plus(ResourceStats other) {
		return new ResourceStats(this.key, this.sections + other.sections, this.writesAccepted + other.writesAccepted,
				this.value + other.value, this.overlaps + other.overlaps, this.concurrentPairs + other.concurrentPairs,
				this.staleReadsRejected + other.staleReadsRejected, this.staleRejected + other.staleRejected,
				this.staleAccepted + other.staleAccepted, this.lostUpdates + other.lostUpdates,
				this.tokenRegressions + other.tokenRegressions, this.writesWithoutCheck + other.writesWithoutCheck,
				this.sectionsWithoutWrite + other.sectionsWithoutWrite, this.openSections + other.openSections);
	}

	/**
	 * Whether the counter equals the number of applied writes.
	 * @return whether the count is exact
	 */
	boolean countIsExact() {
		return this.value == this.writesAccepted;
	}

	/**
	 * A one-line summary for the test log.
	 * @return the summary
	 */
	String summary() {
		return "sections=" + this.sections + " writes=" + this.writesAccepted + " value=" + this.value + " overlaps="
				+ this.overlaps + " concurrentPairs=" + this.concurrentPairs + " staleReadsRejected=" + this.staleReadsRejected
				+ " staleRejected=" + this.staleRejected
				+ " staleAccepted=" + this.staleAccepted + " lostUpdates=" + this.lostUpdates + " tokenRegressions="
				+ this.tokenRegressions + " sectionsWithoutWrite=" + this.sectionsWithoutWrite;
	}

}
