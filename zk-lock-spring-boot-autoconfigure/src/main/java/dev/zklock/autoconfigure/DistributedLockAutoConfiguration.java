package dev.zklock.autoconfigure;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

import dev.zklock.LockTemplate;
import dev.zklock.LostLockAction;
import dev.zklock.aop.DistributedLockAdvisor;
import dev.zklock.aop.DistributedLockInterceptor;
import dev.zklock.aop.DistributedLockValidator;
import dev.zklock.aop.LockInterceptionListener;
import dev.zklock.aop.LockOperationSource;
import dev.zklock.aop.ResolvedOnFirstUse;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.DeadlockDetectionSettings;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockDeadlockListener;
import dev.zklock.LockLossListener;
import dev.zklock.LockManager;
import dev.zklock.LockOwnerData;
import dev.zklock.LockRevocationListener;
import dev.zklock.core.PauseDetector;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for {@link dev.zklock.annotation.DistributedLock} and
 * {@link LockTemplate}: the lock manager, the advisor that locks annotated
 * methods, and the validator that checks their declarations at startup. Lost
 * locks are published as {@link dev.zklock.LockLostEvent}s and passed to every
 * {@link LockLossListener} bean; a {@link LockOwnerData} bean replaces the owner
 * data stored in lock nodes.
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ CuratorFramework.class, InterProcessMutex.class })
@ConditionalOnBean(ZkLockClient.class)
@EnableConfigurationProperties(ZkLockProperties.class)
@Import(DistributedLockAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class DistributedLockAutoConfiguration {

	private static final String ASPECT_ORDER_PROPERTY = "zk-lock.aspect-order";

	private static final String LOST_LOCK_ACTION_PROPERTY = "zk-lock.lost-lock-action";

	private static final String SHUTDOWN_PHASE_TIMEOUT_PROPERTY = "spring.lifecycle.timeout-per-shutdown-phase";

	// Boot's default for spring.lifecycle.timeout-per-shutdown-phase
	private static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

	@Bean
	@ConditionalOnMissingBean
	LockManager zkLockManager(@Qualifier(ZkLockClient.QUALIFIER) CuratorFramework client, ZkLockProperties properties,
			Environment environment, ObjectProvider<LockOwnerData> ownerData,
			ObjectProvider<LockLossListener> lossListeners, ObjectProvider<AsyncLockManager> asyncLockManager,
			ObjectProvider<PauseDetector> pauseDetector, ObjectProvider<LockRevocationListener> revocationListeners,
			ObjectProvider<LockDeadlockListener> deadlockListeners, ApplicationEventPublisher eventPublisher) {
		CuratorLockManager manager = new CuratorLockManager(client, properties.getBasePath(),
				properties.getDefaultTimeout());
		manager.setInterruptOnLoss(properties.isInterruptOnLoss());
		manager.setDefaultMaxHold(properties.getMaxHold());
		manager.setLocalHandoffLimits(properties.getLocalHandoff().getMaxPasses(),
				properties.getLocalHandoff().getMaxTime());
		manager.setPauseDetector(pauseDetector.getIfAvailable());
		manager.setDeadlockDetection(deadlockDetection(properties, environment));
		manager.setOwnerData(properties.isOwnerData()
				? ownerData.getIfAvailable(() -> LockOwnerData.json(environment.getProperty("spring.application.name")))
				: LockOwnerData.none());
		manager.addLockLossListener(
				new LockLostEventPublisher(manager, asyncLockManager::getIfAvailable, eventPublisher));
		lossListeners.orderedStream().forEach(manager::addLockLossListener);
		revocationListeners.orderedStream().forEach(manager::addLockRevocationListener);
		deadlockListeners.orderedStream().forEach(manager::addLockDeadlockListener);
		return manager;
	}

	// The application's name tells the instances of a cycle apart in the exception's message
	private static DeadlockDetectionSettings deadlockDetection(ZkLockProperties properties, Environment environment) {
		ZkLockProperties.DeadlockDetection detection = properties.getDeadlockDetection();
		return new DeadlockDetectionSettings(detection.isEnabled(), detection.getAfter(), detection.getHistory(),
				environment.getProperty("spring.application.name"));
	}

	// A pause shorter than the safe silence of the negotiated session (or the configured one, before a
	// session) cannot have cost the session, so only longer ones put holds in doubt
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "zk-lock.pause-detection.enabled", matchIfMissing = true)
	PauseDetector zkLockPauseDetector(@Qualifier(ZkLockClient.QUALIFIER) CuratorFramework client,
			ZkLockProperties properties) {
		int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
		Duration session = (negotiated > 0) ? Duration.ofMillis(negotiated) : properties.getSessionTimeout();
		Duration tick = properties.getPauseDetection().getTick();
		Duration safeSilence = PauseDetector.safeSilence(session);
		Duration threshold = (safeSilence.compareTo(tick.multipliedBy(3)) > 0) ? safeSilence : tick.multipliedBy(3);
		return new PauseDetector(tick, threshold).start();
	}

	// The asynchronous view of the one engine; a lock manager of the user's own gets an engine of its own here
	@Bean
	@ConditionalOnMissingBean
	AsyncLockManager zkAsyncLockManager(LockManager lockManager,
			@Qualifier(ZkLockClient.QUALIFIER) CuratorFramework client, ZkLockProperties properties,
			Environment environment, ObjectProvider<LockOwnerData> ownerData,
			ObjectProvider<LockLossListener> lossListeners, ApplicationEventPublisher eventPublisher) {
		if (InstrumentedLockManager.unwrap(lockManager) instanceof CuratorLockManager curator) {
			return curator.async(null);
		}
		AsyncLockManager manager = new AsyncLockManager(client, properties.getBasePath(),
				properties.getDefaultTimeout());
		manager.setDefaultMaxHold(properties.getMaxHold());
		manager.setLocalHandoffLimits(properties.getLocalHandoff().getMaxPasses(),
				properties.getLocalHandoff().getMaxTime());
		manager.setDeadlockDetection(deadlockDetection(properties, environment));
		manager.setOwnerData(properties.isOwnerData()
				? ownerData.getIfAvailable(() -> LockOwnerData.json(environment.getProperty("spring.application.name")))
				: LockOwnerData.none());
		manager.addLockLossListener(new LockLostEventPublisher(manager, eventPublisher));
		lossListeners.orderedStream().forEach(manager::addLockLossListener);
		return manager;
	}

	// Drains the holds in flight before the client closes, whatever the order of bean destruction
	@Bean
	@ConditionalOnMissingBean
	LockDrainLifecycle zkLockDrainLifecycle(ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager, Environment environment) {
		BindResult<Duration> configured = Binder.get(environment).bind(SHUTDOWN_PHASE_TIMEOUT_PROPERTY, Duration.class);
		Duration timeout = configured.isBound() ? configured.get() : DEFAULT_SHUTDOWN_PHASE_TIMEOUT;
		return new LockDrainLifecycle(LockManagers.curator(lockManager), LockManagers.async(asyncLockManager),
				timeout);
	}

	@Bean
	@ConditionalOnMissingBean
	LockTemplate lockTemplate(LockManager lockManager, ZkLockProperties properties,
			ObjectProvider<AsyncLockManager> asyncLockManager) {
		return new LockTemplate(lockManager, properties.getLostLockAction(),
				new ResolvedOnFirstUse<>(asyncLockManager::getIfAvailable));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockOperationSource distributedLockOperationSource(Environment environment, BeanFactory beanFactory) {
		return new LockOperationSource(environment, beanFactory);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static DistributedLockInterceptor distributedLockInterceptor(LockOperationSource distributedLockOperationSource,
			ObjectProvider<LockManager> lockManager, ObjectProvider<AsyncLockManager> asyncLockManager,
			ObjectProvider<LockInterceptionListener> listeners, Environment environment) {
		// Created early by the auto-proxy creator: read the action without binding ZkLockProperties
		LostLockAction lostLockAction = Binder.get(environment)
			.bind(LOST_LOCK_ACTION_PROPERTY, LostLockAction.class)
			.orElseGet(() -> LostLockAction.THROW);
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(distributedLockOperationSource,
				new ResolvedOnFirstUse<>(lockManager::getObject),
				new ResolvedOnFirstUse<>(() -> listeners.orderedStream().toList()), lostLockAction);
		interceptor.setAsyncLockManager(new ResolvedOnFirstUse<>(asyncLockManager::getIfAvailable));
		return interceptor;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static DistributedLockAdvisor distributedLockAdvisor(LockOperationSource distributedLockOperationSource,
			DistributedLockInterceptor distributedLockInterceptor, Environment environment) {
		// Created early by the auto-proxy creator: read the order without binding ZkLockProperties
		int order = Binder.get(environment)
			.bind(ASPECT_ORDER_PROPERTY, Integer.class)
			.orElseGet(() -> ZkLockProperties.DEFAULT_ASPECT_ORDER);
		return new DistributedLockAdvisor(distributedLockOperationSource, distributedLockInterceptor, order);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static DistributedLockValidator distributedLockValidator(LockOperationSource distributedLockOperationSource) {
		return new DistributedLockValidator(distributedLockOperationSource);
	}

	/**
	 * Registers an auto-proxy creator unless a stronger one (AspectJ) is already
	 * there, so that the advisor applies with or without AspectJ.
	 */
	static final class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
