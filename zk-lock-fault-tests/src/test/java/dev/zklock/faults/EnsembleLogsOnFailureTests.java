package dev.zklock.faults;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A failed scenario names the ensemble members' logs that were kept for it.
 */
class EnsembleLogsOnFailureTests {

	private static final List<Path> LOGS = List.of(Path.of("target", "fault-injection", "ensemble-member-1.log"));

	@Test
	void failedAssertionNamesTheKeptLogs() {
		AssertionError failure = new AssertionError("grant gap after a leader kill");
		assertThat(handled(failure, LOGS)).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith("grant gap after a leader kill")
			.hasMessageContaining(LOGS.get(0).toString())
			.hasCause(failure);
	}

	@Test
	void otherFailureIsNamedWithItsType() {
		IllegalStateException failure = new IllegalStateException("Waiting for the end of the pause failed");
		assertThat(handled(failure, LOGS)).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith(failure.toString())
			.hasMessageContaining(LOGS.get(0).toString());
	}

	@Test
	void withoutLogsTheFailureIsUnchanged() {
		AssertionError failure = new AssertionError("before the lab started");
		assertThat(handled(failure, List.of())).isSameAs(failure);
	}

	private static Throwable handled(Throwable failure, List<Path> logs) {
		return catchThrowable(() -> new EnsembleLogsOnFailure(() -> logs).handleTestExecutionException(null, failure));
	}

}
