package dev.zklock.faults;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.zklock.faults.Grants.Attempt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checks of {@link Grants} on made-up histories (times in milliseconds, as
 * nanoseconds): each one fails where it should, and passes where it should.
 */
class GrantsTests {

	private static final long MS = 1_000_000;

	@Test
	void overlappingHoldsAreCounted() {
		Grants grants = Grants.of(List.of(grant("a", 0, 0, 10, 20, 5), grant("b", 0, 0, 15, 25, 6),
				grant("a", 0, 20, 25, 30, 7)));
		assertThat(grants.overlaps()).isEqualTo(1);
	}

	@Test
	void aTokenBelowThePreviousOneIsADecreaseAndOneTokenInTwoJvmsIsCounted() {
		Grants grants = Grants.of(List.of(grant("a", 0, 0, 1, 2, 7), grant("a", 1, 0, 3, 4, 7),
				grant("b", 0, 0, 5, 6, 6), grant("c", 0, 0, 7, 8, 6)));
		assertThat(grants.tokenDecreases()).isEqualTo(1);
		assertThat(grants.tokensSharedAcrossJvms()).isEqualTo(1);
		assertThat(Grants.of(List.of(grant("a", 0, 0, 1, 2, 7), grant("a", 1, 0, 3, 4, 7), grant("b", 0, 0, 5, 6, 8)))
			.tokenDecreases()).isZero();
	}

	@Test
	void grantsInARowCountOnceAnotherJvmHasWaitedForTheGrace() {
		List<Attempt> attempts = new ArrayList<>();
		// a holds 30 times in a row, 1 ms each, from 100 ms; b asks at 105 ms and gets the key at 130 ms
		for (int i = 0; i < 30; i++) {
			attempts.add(grant("a", i % 4, 0, 100 + i, 100 + i + 1, 9));
		}
		attempts.add(grant("b", 0, 105, 130, 131, 10));
		Grants grants = Grants.of(attempts);
		assertThat(grants.runs(0).longestWhileWaiting()).isEqualTo(25);
		assertThat(grants.runs(10 * MS).longestWhileWaiting()).isEqualTo(15);
		assertThat(grants.runs(0).longest()).isEqualTo(30);
		assertThat(grants.runs(0).count()).isEqualTo(2);
	}

	@Test
	void aJvmDoesNotWaitWhileItHoldsNorAfterItsAskWasGranted() {
		List<Attempt> attempts = new ArrayList<>();
		// b asked at 0 and holds until 51; a asks at 51; b's next ask comes at 60 ms, after a's run
		attempts.add(grant("b", 0, 0, 40, 50, 5));
		attempts.add(grant("b", 1, 1, 50, 51, 5));
		for (int i = 0; i < 5; i++) {
			attempts.add(grant("a", 0, (i == 0) ? 51 : 52 + i, 52 + i, 53 + i, 6));
		}
		attempts.add(grant("b", 0, 60, 70, 71, 7));
		assertThat(Grants.of(attempts).runs(0).longestWhileWaiting()).isZero();
		assertThat(Grants.of(attempts).perJvm()).containsEntry("a", 5L).containsEntry("b", 3L);
	}

	private static Attempt grant(String jvm, int thread, long askMs, long enterMs, long exitMs, long token) {
		return new Attempt(jvm, thread, askMs * MS, enterMs * MS, exitMs * MS, token);
	}

}
