package dev.zklock.annotation;

/**
 * What an annotated method does when its lock is not acquired in time and no
 * fallback method is declared.
 */
public enum OnTimeout {

	/**
	 * Throw {@link dev.zklock.LockTimeoutException}.
	 */
	THROW,

	/**
	 * Do not run the method: return {@code null}, {@code Optional.empty()} or an
	 * empty collection, as the return type asks.
	 */
	SKIP

}
