package dev.zklock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link LockContext#current()} is the innermost open lock of the thread.
 */
class LockContextTests extends AbstractZooKeeperTests {

	@Test
	void outsideAnyLockThereIsNoContext() {
		assertThat(LockContext.find()).isEmpty();
		assertThatIllegalStateException().isThrownBy(LockContext::current)
			.withMessageContaining(Thread.currentThread().getName())
			.withMessageContaining("holds no lock")
			.withMessageContaining("LockContext.find()");
	}

	@Test
	void innermostLockIsCurrentAndClosingRestoresTheOuterOne() {
		try (LockHandle outer = this.manager.acquire(LockRequest.named("outer").keys("1").build())) {
			assertThat(LockContext.current()).isSameAs(outer);
			try (LockHandle inner = this.manager.acquire(LockRequest.named("inner").keys("2").mode(LockMode.WRITE)
				.build())) {
				LockContext current = LockContext.current();
				assertThat(current).isSameAs(inner);
				assertThat(current.name()).isEqualTo("inner");
				assertThat(current.keys()).containsExactly("2");
				assertThat(current.mode()).isEqualTo(LockMode.WRITE);
				assertThat(current.fencingToken()).isGreaterThan(outer.fencingToken());
				assertThat(current.isHeld()).isTrue();
				assertThatNoException().isThrownBy(current::assertHeld);
			}
			assertThat(LockContext.current()).isSameAs(outer);
		}
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	void reentrantAcquisitionIsCurrentWithTheSameToken() {
		LockRequest request = LockRequest.named("account").keys("7").build();
		try (LockHandle outer = this.manager.acquire(request)) {
			try (LockHandle nested = this.manager.acquire(request)) {
				assertThat(LockContext.current()).isSameAs(nested);
				assertThat(LockContext.current().fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(LockContext.current()).isSameAs(outer);
		}
	}

	@Test
	void handlesClosedOutOfOrderLeaveTheOthersInPlace() {
		LockHandle first = this.manager.acquire(LockRequest.named("a").build());
		LockHandle second = this.manager.acquire(LockRequest.named("b").build());
		LockHandle third = this.manager.acquire(LockRequest.named("c").build());
		second.close();
		assertThat(LockContext.current()).isSameAs(third);
		third.close();
		assertThat(LockContext.current()).isSameAs(first);
		first.close();
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	void handleThatWasNotAcquiredIsNeverCurrent() throws Exception {
		LockRequest request = LockRequest.named("busy").keys("1").build();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request)) {
			try (LockHandle handle = this.manager.acquire(request.withTimeout(java.time.Duration.ZERO))) {
				assertThat(handle.isAcquired()).isFalse();
				assertThat(handle.isHeld()).isFalse();
				assertThat(LockContext.find()).isEmpty();
			}
		}
	}

	@Test
	void contextBelongsToTheThreadThatHoldsTheLock() throws Exception {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("mine").build())) {
			CompletableFuture<Boolean> seenElsewhere = new CompletableFuture<>();
			new Thread(() -> seenElsewhere.complete(LockContext.find().isPresent())).start();
			assertThat(seenElsewhere.get(10, TimeUnit.SECONDS)).isFalse();
			assertThat(LockContext.current()).isSameAs(handle);
		}
	}

	@Test
	void templateCallbackAndTryAcquireHandleAreCurrent() {
		LockTemplate template = new LockTemplate(this.manager);
		long token = template.execute(LockRequest.named("job").keys("nightly").mode(LockMode.SEMAPHORE).build(), () -> {
			LockContext context = LockContext.current();
			assertThat(context.name()).isEqualTo("job");
			context.assertHeld();
			return context.fencingToken();
		});
		assertThat(token).isPositive();
		assertThat(LockContext.find()).isEmpty();
		try (LockHandle handle = template.tryAcquire(LockRequest.named("job").keys("hourly").build())) {
			assertThat(LockContext.current()).isSameAs(handle);
		}
		assertThat(LockContext.find()).isEmpty();
	}

}
