package dev.zklock.aop;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A {@link Supplier} that resolves its value on first use and then keeps it,
 * without taking a lock: reactive callers on non-blocking threads must never park.
 * Concurrent first calls may each resolve the value, so the source must return the
 * same (or an equivalent) value every time, as a singleton bean lookup does.
 *
 * @param <T> the value type
 */
public final class ResolvedOnFirstUse<T> implements Supplier<T> {

	private final Supplier<T> source;

	private volatile @Nullable T value;

	/**
	 * Create a new instance.
	 * @param source resolves the value; called until it returns non-null
	 */
	public ResolvedOnFirstUse(Supplier<T> source) {
		this.source = source;
	}

	@Override
	public T get() {
		T resolved = this.value;
		if (resolved == null) {
			resolved = this.source.get();
			this.value = resolved;
		}
		return resolved;
	}

}
