package dev.zklock.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

import dev.zklock.LockRevocation;
import dev.zklock.actuate.DeadlockDescriptor;
import dev.zklock.actuate.LocalHandoffDescriptor;
import dev.zklock.actuate.LockQueuesDescriptor;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.aop.LockExpressionRootObject;

/**
 * The {@link RuntimeHints} zk-lock needs whatever the application's beans are: the
 * root object of key expressions (read by SpEL), the JSON of the {@code locks}
 * endpoint, the classes zk-lock and ZooKeeper look up by name, and the client socket
 * ZooKeeper creates by reflection. Hints that depend on the application's own beans
 * come from {@link dev.zklock.aop.DistributedLockHintsAotProcessor}. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class ZkLockRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Classes zk-lock only checks for, by name: Reactor (asynchronous return types),
	 * Reactive Streams, the embedded ZooKeeper server and what it needs.
	 */
	static final String[] LOOKED_UP_BY_NAME = { "reactor.core.publisher.Mono", "reactor.core.publisher.Flux",
			"org.reactivestreams.Publisher", "dev.zklock.embedded.EmbeddedZooKeeper",
			"com.codahale.metrics.Reservoir", "org.xerial.snappy.SnappyInputStream" };

	/**
	 * The client sockets ZooKeeper instantiates from {@code zookeeper.clientCnxnSocket},
	 * with a {@code ZKClientConfig} constructor: NIO by default, Netty for TLS.
	 */
	static final String[] CLIENT_SOCKETS = { "org.apache.zookeeper.ClientCnxnSocketNIO",
			"org.apache.zookeeper.ClientCnxnSocketNetty" };

	private static final String CLIENT_CONFIG = "org.apache.zookeeper.client.ZKClientConfig";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		ReflectionHints reflection = hints.reflection();
		reflection.registerType(LockExpressionRootObject.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		new BindingReflectionHintsRegistrar().registerReflectionHints(reflection, LocksEndpoint.LocksDescriptor.class,
				LocksEndpoint.LockDescriptor.class, LocalHandoffDescriptor.class, LocalHandoffDescriptor.TenureDescriptor.class,
				LockQueuesDescriptor.class, LockQueuesDescriptor.KeyQueue.class, LockQueuesDescriptor.Participant.class,
				LockRevocation.RevokedHolder.class, DeadlockDescriptor.class, DeadlockDescriptor.PartyDescriptor.class,
				DeadlockDescriptor.EdgeDescriptor.class, DeadlockDescriptor.LockRefDescriptor.class);
		for (String className : LOOKED_UP_BY_NAME) {
			reflection.registerTypeIfPresent(classLoader, className);
		}
		for (String className : CLIENT_SOCKETS) {
			reflection.registerTypeIfPresent(classLoader, className,
					(type) -> type.withConstructor(List.of(TypeReference.of(CLIENT_CONFIG)),
							ExecutableMode.INVOKE));
		}
	}

}
