package dev.zklock.autoconfigure;

import org.apache.zookeeper.ClientCnxnSocketNIO;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import dev.zklock.actuate.DeadlockDescriptor;
import dev.zklock.actuate.LocalHandoffDescriptor;
import dev.zklock.actuate.LockQueuesDescriptor;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.aop.LockExpressionRootObject;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints of {@link ZkLockRuntimeHints}, checked with {@link RuntimeHintsPredicates}.
 */
class ZkLockRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	ZkLockRuntimeHintsTests() {
		new ZkLockRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void keyExpressionsCanReadTheRootObject() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(LockExpressionRootObject.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LockExpressionRootObject.class.getMethod("getArgs"))).accepts(this.hints);
	}

	@Test
	void theLocksEndpointsJsonCanBeWritten() throws Exception {
		for (Class<?> type : new Class<?>[] { LocksEndpoint.LocksDescriptor.class, LocksEndpoint.LockDescriptor.class,
				LocalHandoffDescriptor.class, LocalHandoffDescriptor.TenureDescriptor.class, LockQueuesDescriptor.class,
				LockQueuesDescriptor.KeyQueue.class, LockQueuesDescriptor.Participant.class, DeadlockDescriptor.class,
				DeadlockDescriptor.PartyDescriptor.class, DeadlockDescriptor.EdgeDescriptor.class,
				DeadlockDescriptor.LockRefDescriptor.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LockQueuesDescriptor.Participant.class.getMethod("fencingToken"))).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LocksEndpoint.LocksDescriptor.class.getMethod("basePath"))).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LocalHandoffDescriptor.TenureDescriptor.class.getMethod("holders"))).accepts(this.hints);
	}

	@Test
	void zooKeeperCanCreateItsClientSockets() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(ClientCnxnSocketNIO.class.getDeclaredConstructor(ZKClientConfig.class)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(ClientCnxnSocketNetty.class.getDeclaredConstructor(ZKClientConfig.class)))
			.accepts(this.hints);
	}

	@Test
	void classesLookedUpByNameAreRegisteredWhenPresent() {
		for (String className : ZkLockRuntimeHints.LOOKED_UP_BY_NAME) {
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(className))).as(className)
				.accepts(this.hints);
		}
		RuntimeHints withoutThem = new RuntimeHints();
		new ZkLockRuntimeHints().registerHints(withoutThem, new ClassLoader(null) {
		});
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("reactor.core.publisher.Mono")))
			.rejects(withoutThem);
	}

	@Test
	void isRegisteredInAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anyMatch(ZkLockRuntimeHints.class::isInstance);
	}

}
