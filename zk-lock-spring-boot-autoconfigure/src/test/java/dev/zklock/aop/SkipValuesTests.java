package dev.zklock.aop;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SkipValues}.
 */
class SkipValuesTests {

	@Test
	void emptyValuesForContainerTypes() {
		assertThat(SkipValues.forReturnType(Optional.class).get()).isEqualTo(Optional.empty());
		assertThat(SkipValues.forReturnType(OptionalInt.class).get()).isEqualTo(OptionalInt.empty());
		assertThat((List<?>) SkipValues.forReturnType(List.class).get()).isEmpty();
		assertThat((Collection<?>) SkipValues.forReturnType(Collection.class).get()).isEmpty();
		assertThat((Set<?>) SkipValues.forReturnType(Set.class).get()).isEmpty();
		assertThat(SkipValues.forReturnType(SortedSet.class).get()).isInstanceOf(SortedSet.class);
		assertThat((Map<?, ?>) SkipValues.forReturnType(Map.class).get()).isEmpty();
		assertThat((Stream<?>) SkipValues.forReturnType(Stream.class).get()).isEmpty();
	}

	@Test
	void concreteCollectionsAreFreshInstances() {
		Object first = SkipValues.forReturnType(ArrayList.class).get();
		assertThat(first).isInstanceOf(ArrayList.class).isNotSameAs(SkipValues.forReturnType(ArrayList.class).get());
		assertThat(SkipValues.forReturnType(TreeMap.class).get()).isInstanceOf(TreeMap.class);
	}

	@Test
	void nullForEverythingElse() {
		assertThat(SkipValues.forReturnType(String.class).get()).isNull();
		assertThat(SkipValues.forReturnType(Integer.class).get()).isNull();
		assertThat(SkipValues.forReturnType(void.class).get()).isNull();
	}

}
