package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * A generator of values from a source of randomness: the same seed gives the same
 * values, so that a seed printed in a failure draws its schedule again. Shrinking is
 * not a generator's business: {@link ScheduleShrinker} works on the schedule itself.
 * @param <T> the values
 */
@FunctionalInterface
interface Gen<T> {

	/**
	 * The next value.
	 * @param random the source, which the value's draws advance
	 * @return the value
	 */
	T next(RandomGenerator random);

	default <R> Gen<R> map(Function<? super T, ? extends R> mapper) {
		return (random) -> mapper.apply(next(random));
	}

	default <R> Gen<R> flatMap(Function<? super T, Gen<R>> next) {
		return (random) -> next.apply(next(random)).next(random);
	}

	/**
	 * This value, or, in the given share of draws, none.
	 * @param nullShare from 0 to 1
	 * @return the generator
	 */
	default Gen<@Nullable T> orNull(double nullShare) {
		return (random) -> (random.nextDouble() < nullShare) ? null : next(random);
	}

	/**
	 * Lists of this generator's values, their size drawn evenly from the bounds.
	 * @param min the fewest values
	 * @param max the most values
	 * @return the generator
	 */
	default Gen<List<T>> listOf(int min, int max) {
		Gen<Integer> size = integers(min, max);
		return (random) -> {
			int count = size.next(random);
			List<T> values = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				values.add(next(random));
			}
			return List.copyOf(values);
		};
	}

	/** Lists of exactly this many values. */
	default Gen<List<T>> listOf(int size) {
		return listOf(size, size);
	}

	/** Draws this value and the other's, and combines them. */
	default <U, R> Gen<R> with(Gen<U> other, BiFunction<? super T, ? super U, ? extends R> combine) {
		return (random) -> {
			T first = next(random);
			return combine.apply(first, other.next(random));
		};
	}

	/** Always this value. */
	static <T> Gen<T> constant(T value) {
		return (random) -> value;
	}

	/** An integer from min to max, both included. */
	static Gen<Integer> integers(int min, int max) {
		return (random) -> random.nextInt(min, max + 1);
	}

	/** A long from min to max, both included. */
	static Gen<Long> longs(long min, long max) {
		return (random) -> random.nextLong(min, max + 1);
	}

	/** Milliseconds from 0 to {@code slots × step}, in steps of {@code step}. */
	static Gen<Long> millis(long slots, long step) {
		return longs(0, slots).map((slot) -> slot * step);
	}

	/** True or false, evenly. */
	static Gen<Boolean> booleans() {
		return (random) -> random.nextBoolean();
	}

	/** One of the values, evenly. */
	@SafeVarargs
	static <T> Gen<T> of(T... values) {
		return of(Arrays.asList(values));
	}

	/** One of the values, evenly. */
	static <T> Gen<T> of(List<T> values) {
		if (values.isEmpty()) {
			throw new IllegalArgumentException("nothing to choose from");
		}
		List<T> copy = List.copyOf(values);
		return (random) -> copy.get(random.nextInt(copy.size()));
	}

	/** One of the constants of an enum, evenly. */
	static <E extends Enum<E>> Gen<E> of(Class<E> type) {
		return of(type.getEnumConstants());
	}

	/** A value of one of the generators, chosen evenly. */
	@SafeVarargs
	static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
		List<Gen<? extends T>> all = List.of(gens);
		return (random) -> all.get(random.nextInt(all.size())).next(random);
	}

	/** One of the values, each as often as its weight says. */
	@SafeVarargs
	static <T> Gen<T> frequency(Weighted<T>... values) {
		List<Weighted<Gen<T>>> gens = new ArrayList<>();
		for (Weighted<T> value : values) {
			gens.add(new Weighted<>(value.weight(), constant(value.value())));
		}
		return frequencyOf(gens);
	}

	/** A value of one of the generators, each chosen as often as its weight says. */
	@SafeVarargs
	static <T> Gen<T> frequencyOf(Weighted<Gen<T>>... gens) {
		return frequencyOf(List.of(gens));
	}

	/** As above, from a list. */
	static <T> Gen<T> frequencyOf(List<Weighted<Gen<T>>> gens) {
		int total = gens.stream().mapToInt(Weighted::weight).sum();
		if (total <= 0) {
			throw new IllegalArgumentException("no weight to choose by");
		}
		List<Weighted<Gen<T>>> copy = List.copyOf(gens);
		return (random) -> {
			int pick = random.nextInt(total);
			for (Weighted<Gen<T>> gen : copy) {
				pick -= gen.weight();
				if (pick < 0) {
					return gen.value().next(random);
				}
			}
			throw new IllegalStateException("weights changed");
		};
	}

	/** A weight and what it weighs. */
	static <T> Weighted<T> weight(int weight, T value) {
		return new Weighted<>(weight, value);
	}

	/**
	 * A value and its weight among others.
	 * @param <T> the value
	 * @param weight how often, relative to the others
	 * @param value the value
	 */
	record Weighted<T>(int weight, T value) {

		public Weighted {
			if (weight < 0) {
				throw new IllegalArgumentException("a negative weight: " + weight);
			}
		}

	}

}
