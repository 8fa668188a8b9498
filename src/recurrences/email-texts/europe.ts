// The payer emails' words in the payment page's European languages (see ./words.ts).
import type { EmailWords } from './words.ts';

export const en: EmailWords = {
  period: { weekly: '{amount} per week', monthly: '{amount} per month', three_month: '{amount} every three months' },
  subject: { subscribed: 'Your subscription to {name} is active', renewal_due: 'Your subscription to {name} is due for renewal', renewal_auto: 'Your renewal of {name} will be collected automatically', paid: 'Renewal of {name} paid', failed: 'Your subscription to {name} has stopped', cancelled: 'Your subscription to {name} is cancelled' },
  body: {
    subscribed: 'Thank you. Your subscription to {name} at {merchant} is active: {price}.',
    renewal_due: 'A new period of your subscription to {name} at {merchant} has started: {price}. Please pay the renewal to keep it active.',
    renewal_auto: 'A new period of your subscription to {name} at {merchant} has started: {price}. It will be collected automatically from the wallet you approved, so there is nothing to do. You can see it, or cancel the subscription, on its page.',
    paid: 'Your payment for the new period of {name} at {merchant} has arrived: {price}. The subscription stays active.',
    failed: 'The renewal of {name} at {merchant} ({price}) was not paid in time, so the subscription has stopped.',
    cancelled: 'Your subscription to {name} at {merchant} ({price}) is cancelled. No further renewal will be asked for.',
  },
  pay: 'Pay the renewal here:',
  page: 'Your subscription:',
  why: 'You receive this email because you gave this address when subscribing at {merchant}.',
};

export const es: EmailWords = {
  period: { weekly: '{amount} por semana', monthly: '{amount} al mes', three_month: '{amount} cada tres meses' },
  subject: { subscribed: 'Tu suscripción a {name} está activa', renewal_due: 'Toca renovar tu suscripción a {name}', renewal_auto: 'La renovación de {name} se cobrará automáticamente', paid: 'Renovación de {name} pagada', failed: 'Tu suscripción a {name} se ha detenido', cancelled: 'Tu suscripción a {name} está cancelada' },
  body: {
    subscribed: 'Gracias. Tu suscripción a {name} en {merchant} está activa: {price}.',
    renewal_due: 'Ha empezado un nuevo periodo de tu suscripción a {name} en {merchant}: {price}. Paga la renovación para mantenerla activa.',
    renewal_auto: 'Ha empezado un nuevo periodo de tu suscripción a {name} en {merchant}: {price}. Se cobrará automáticamente de la cartera que autorizaste, así que no tienes que hacer nada. Puedes verla, o cancelar la suscripción, en su página.',
    paid: 'Ha llegado tu pago del nuevo periodo de {name} en {merchant}: {price}. La suscripción sigue activa.',
    failed: 'La renovación de {name} en {merchant} ({price}) no se pagó a tiempo, así que la suscripción se ha detenido.',
    cancelled: 'Tu suscripción a {name} en {merchant} ({price}) está cancelada. No se pedirán más renovaciones.',
  },
  pay: 'Paga la renovación aquí:',
  page: 'Tu suscripción:',
  why: 'Recibes este correo porque diste esta dirección al suscribirte en {merchant}.',
};

export const pt: EmailWords = {
  period: { weekly: '{amount} por semana', monthly: '{amount} por mês', three_month: '{amount} a cada três meses' },
  subject: { subscribed: 'Sua assinatura de {name} está ativa', renewal_due: 'Sua assinatura de {name} precisa ser renovada', renewal_auto: 'A renovação de {name} será cobrada automaticamente', paid: 'Renovação de {name} paga', failed: 'Sua assinatura de {name} foi interrompida', cancelled: 'Sua assinatura de {name} foi cancelada' },
  body: {
    subscribed: 'Obrigado. Sua assinatura de {name} em {merchant} está ativa: {price}.',
    renewal_due: 'Começou um novo período da sua assinatura de {name} em {merchant}: {price}. Pague a renovação para mantê-la ativa.',
    renewal_auto: 'Começou um novo período da sua assinatura de {name} em {merchant}: {price}. Ele será cobrado automaticamente da carteira que você autorizou, então não é preciso fazer nada. Você pode acompanhá-lo, ou cancelar a assinatura, na página dela.',
    paid: 'Seu pagamento do novo período de {name} em {merchant} chegou: {price}. A assinatura continua ativa.',
    failed: 'A renovação de {name} em {merchant} ({price}) não foi paga a tempo, então a assinatura foi interrompida.',
    cancelled: 'Sua assinatura de {name} em {merchant} ({price}) foi cancelada. Nenhuma outra renovação será pedida.',
  },
  pay: 'Pague a renovação aqui:',
  page: 'Sua assinatura:',
  why: 'Você recebe este e-mail porque informou este endereço ao assinar em {merchant}.',
};

export const ru: EmailWords = {
  period: { weekly: '{amount} в неделю', monthly: '{amount} в месяц', three_month: '{amount} раз в три месяца' },
  subject: { subscribed: 'Ваша подписка на {name} активна', renewal_due: 'Пора продлить подписку на {name}', renewal_auto: 'Продление {name} будет списано автоматически', paid: 'Продление {name} оплачено', failed: 'Ваша подписка на {name} остановлена', cancelled: 'Ваша подписка на {name} отменена' },
  body: {
    subscribed: 'Спасибо. Ваша подписка на {name} у {merchant} активна: {price}.',
    renewal_due: 'Начался новый период вашей подписки на {name} у {merchant}: {price}. Оплатите продление, чтобы подписка оставалась активной.',
    renewal_auto: 'Начался новый период вашей подписки на {name} у {merchant}: {price}. Сумма будет списана автоматически с кошелька, которому вы дали разрешение, поэтому делать ничего не нужно. Посмотреть платёж или отменить подписку можно на её странице.',
    paid: 'Ваш платёж за новый период {name} у {merchant} получен: {price}. Подписка остаётся активной.',
    failed: 'Продление {name} у {merchant} ({price}) не было оплачено вовремя, поэтому подписка остановлена.',
    cancelled: 'Ваша подписка на {name} у {merchant} ({price}) отменена. Новых продлений не будет.',
  },
  pay: 'Оплатить продление:',
  page: 'Ваша подписка:',
  why: 'Вы получили это письмо, потому что указали этот адрес при оформлении подписки у {merchant}.',
};

export const tr: EmailWords = {
  period: { weekly: 'haftalık {amount}', monthly: 'aylık {amount}', three_month: 'üç ayda bir {amount}' },
  subject: { subscribed: '{name} aboneliğiniz etkin', renewal_due: '{name} aboneliğinizin yenilenme zamanı geldi', renewal_auto: '{name} yenilemesi otomatik olarak tahsil edilecek', paid: '{name} yenilemesi ödendi', failed: '{name} aboneliğiniz durdu', cancelled: '{name} aboneliğiniz iptal edildi' },
  body: {
    subscribed: 'Teşekkürler. {merchant} üzerindeki {name} aboneliğiniz etkin: {price}.',
    renewal_due: '{merchant} üzerindeki {name} aboneliğinizin yeni dönemi başladı: {price}. Etkin kalması için yenilemeyi ödeyin.',
    renewal_auto: '{merchant} üzerindeki {name} aboneliğinizin yeni dönemi başladı: {price}. Tutar, onay verdiğiniz cüzdandan otomatik olarak tahsil edilecek; bir şey yapmanız gerekmiyor. Ödemeyi görmek veya aboneliği iptal etmek için abonelik sayfasını kullanabilirsiniz.',
    paid: '{merchant} üzerindeki {name} için yeni dönem ödemeniz ulaştı: {price}. Abonelik etkin kalıyor.',
    failed: '{merchant} üzerindeki {name} yenilemesi ({price}) zamanında ödenmediği için abonelik durdu.',
    cancelled: '{merchant} üzerindeki {name} aboneliğiniz ({price}) iptal edildi. Başka yenileme istenmeyecek.',
  },
  pay: 'Yenilemeyi buradan ödeyin:',
  page: 'Aboneliğiniz:',
  why: 'Bu e-postayı, {merchant} üzerinde abone olurken bu adresi verdiğiniz için alıyorsunuz.',
};

export const de: EmailWords = {
  period: { weekly: '{amount} pro Woche', monthly: '{amount} pro Monat', three_month: '{amount} alle drei Monate' },
  subject: { subscribed: 'Ihr Abonnement für {name} ist aktiv', renewal_due: 'Ihr Abonnement für {name} ist zur Verlängerung fällig', renewal_auto: 'Die Verlängerung von {name} wird automatisch eingezogen', paid: 'Verlängerung von {name} bezahlt', failed: 'Ihr Abonnement für {name} wurde beendet', cancelled: 'Ihr Abonnement für {name} ist gekündigt' },
  body: {
    subscribed: 'Vielen Dank. Ihr Abonnement für {name} bei {merchant} ist aktiv: {price}.',
    renewal_due: 'Ein neuer Zeitraum Ihres Abonnements für {name} bei {merchant} hat begonnen: {price}. Bitte bezahlen Sie die Verlängerung, damit es aktiv bleibt.',
    renewal_auto: 'Ein neuer Zeitraum Ihres Abonnements für {name} bei {merchant} hat begonnen: {price}. Der Betrag wird automatisch von der Wallet eingezogen, die Sie freigegeben haben; Sie müssen nichts tun. Auf der Seite des Abonnements können Sie die Zahlung verfolgen oder das Abonnement kündigen.',
    paid: 'Ihre Zahlung für den neuen Zeitraum von {name} bei {merchant} ist eingegangen: {price}. Das Abonnement bleibt aktiv.',
    failed: 'Die Verlängerung von {name} bei {merchant} ({price}) wurde nicht rechtzeitig bezahlt, daher wurde das Abonnement beendet.',
    cancelled: 'Ihr Abonnement für {name} bei {merchant} ({price}) ist gekündigt. Es wird keine weitere Verlängerung verlangt.',
  },
  pay: 'Verlängerung hier bezahlen:',
  page: 'Ihr Abonnement:',
  why: 'Sie erhalten diese E-Mail, weil Sie diese Adresse beim Abonnieren bei {merchant} angegeben haben.',
};

export const fr: EmailWords = {
  period: { weekly: '{amount} par semaine', monthly: '{amount} par mois', three_month: '{amount} tous les trois mois' },
  subject: { subscribed: 'Votre abonnement à {name} est actif', renewal_due: 'Votre abonnement à {name} est à renouveler', renewal_auto: 'Le renouvellement de {name} sera prélevé automatiquement', paid: 'Renouvellement de {name} payé', failed: 'Votre abonnement à {name} est arrêté', cancelled: 'Votre abonnement à {name} est annulé' },
  body: {
    subscribed: 'Merci. Votre abonnement à {name} chez {merchant} est actif : {price}.',
    renewal_due: 'Une nouvelle période de votre abonnement à {name} chez {merchant} a commencé : {price}. Payez le renouvellement pour le garder actif.',
    renewal_auto: 'Une nouvelle période de votre abonnement à {name} chez {merchant} a commencé : {price}. Elle sera prélevée automatiquement sur le portefeuille que vous avez autorisé : vous n’avez rien à faire. Vous pouvez la suivre, ou résilier l’abonnement, sur sa page.',
    paid: 'Votre paiement de la nouvelle période de {name} chez {merchant} est arrivé : {price}. L’abonnement reste actif.',
    failed: 'Le renouvellement de {name} chez {merchant} ({price}) n’a pas été payé à temps : l’abonnement est arrêté.',
    cancelled: 'Votre abonnement à {name} chez {merchant} ({price}) est annulé. Aucun autre renouvellement ne sera demandé.',
  },
  pay: 'Payez le renouvellement ici :',
  page: 'Votre abonnement :',
  why: 'Vous recevez cet e-mail car vous avez donné cette adresse en vous abonnant chez {merchant}.',
};

export const it: EmailWords = {
  period: { weekly: '{amount} a settimana', monthly: '{amount} al mese', three_month: '{amount} ogni tre mesi' },
  subject: { subscribed: 'Il tuo abbonamento a {name} è attivo', renewal_due: 'Il tuo abbonamento a {name} va rinnovato', renewal_auto: 'Il rinnovo di {name} verrà addebitato automaticamente', paid: 'Rinnovo di {name} pagato', failed: 'Il tuo abbonamento a {name} si è interrotto', cancelled: 'Il tuo abbonamento a {name} è annullato' },
  body: {
    subscribed: 'Grazie. Il tuo abbonamento a {name} presso {merchant} è attivo: {price}.',
    renewal_due: 'È iniziato un nuovo periodo del tuo abbonamento a {name} presso {merchant}: {price}. Paga il rinnovo per mantenerlo attivo.',
    renewal_auto: 'È iniziato un nuovo periodo del tuo abbonamento a {name} presso {merchant}: {price}. Verrà addebitato automaticamente dal wallet che hai autorizzato, quindi non devi fare nulla. Puoi seguirlo, o annullare l’abbonamento, dalla sua pagina.',
    paid: 'Il tuo pagamento per il nuovo periodo di {name} presso {merchant} è arrivato: {price}. L’abbonamento resta attivo.',
    failed: 'Il rinnovo di {name} presso {merchant} ({price}) non è stato pagato in tempo, quindi l’abbonamento si è interrotto.',
    cancelled: 'Il tuo abbonamento a {name} presso {merchant} ({price}) è annullato. Non verranno chiesti altri rinnovi.',
  },
  pay: 'Paga il rinnovo qui:',
  page: 'Il tuo abbonamento:',
  why: 'Ricevi questa email perché hai indicato questo indirizzo abbonandoti presso {merchant}.',
};

export const nl: EmailWords = {
  period: { weekly: '{amount} per week', monthly: '{amount} per maand', three_month: '{amount} per drie maanden' },
  subject: { subscribed: 'Je abonnement op {name} is actief', renewal_due: 'Je abonnement op {name} moet worden verlengd', renewal_auto: 'De verlenging van {name} wordt automatisch geïnd', paid: 'Verlenging van {name} betaald', failed: 'Je abonnement op {name} is gestopt', cancelled: 'Je abonnement op {name} is opgezegd' },
  body: {
    subscribed: 'Bedankt. Je abonnement op {name} bij {merchant} is actief: {price}.',
    renewal_due: 'Een nieuwe periode van je abonnement op {name} bij {merchant} is begonnen: {price}. Betaal de verlenging om het actief te houden.',
    renewal_auto: 'Een nieuwe periode van je abonnement op {name} bij {merchant} is begonnen: {price}. Het bedrag wordt automatisch geïnd van de wallet die je hebt goedgekeurd, dus je hoeft niets te doen. Op de pagina van het abonnement kun je de betaling volgen of het abonnement opzeggen.',
    paid: 'Je betaling voor de nieuwe periode van {name} bij {merchant} is binnen: {price}. Het abonnement blijft actief.',
    failed: 'De verlenging van {name} bij {merchant} ({price}) is niet op tijd betaald, dus het abonnement is gestopt.',
    cancelled: 'Je abonnement op {name} bij {merchant} ({price}) is opgezegd. Er wordt geen verlenging meer gevraagd.',
  },
  pay: 'Betaal de verlenging hier:',
  page: 'Je abonnement:',
  why: 'Je ontvangt deze e-mail omdat je dit adres opgaf toen je je abonneerde bij {merchant}.',
};

export const pl: EmailWords = {
  period: { weekly: '{amount} tygodniowo', monthly: '{amount} miesięcznie', three_month: '{amount} co trzy miesiące' },
  subject: { subscribed: 'Twoja subskrypcja {name} jest aktywna', renewal_due: 'Czas odnowić subskrypcję {name}', renewal_auto: 'Odnowienie {name} zostanie pobrane automatycznie', paid: 'Odnowienie {name} opłacone', failed: 'Twoja subskrypcja {name} została wstrzymana', cancelled: 'Twoja subskrypcja {name} została anulowana' },
  body: {
    subscribed: 'Dziękujemy. Twoja subskrypcja {name} w {merchant} jest aktywna: {price}.',
    renewal_due: 'Rozpoczął się nowy okres Twojej subskrypcji {name} w {merchant}: {price}. Opłać odnowienie, aby pozostała aktywna.',
    renewal_auto: 'Rozpoczął się nowy okres Twojej subskrypcji {name} w {merchant}: {price}. Kwota zostanie pobrana automatycznie z portfela, który zatwierdziłeś, więc nie musisz nic robić. Na stronie subskrypcji możesz śledzić płatność lub anulować subskrypcję.',
    paid: 'Twoja płatność za nowy okres {name} w {merchant} dotarła: {price}. Subskrypcja pozostaje aktywna.',
    failed: 'Odnowienie {name} w {merchant} ({price}) nie zostało opłacone na czas, więc subskrypcja została wstrzymana.',
    cancelled: 'Twoja subskrypcja {name} w {merchant} ({price}) została anulowana. Kolejne odnowienia nie będą wymagane.',
  },
  pay: 'Opłać odnowienie tutaj:',
  page: 'Twoja subskrypcja:',
  why: 'Otrzymujesz tę wiadomość, ponieważ podałeś ten adres, subskrybując w {merchant}.',
};

export const uk: EmailWords = {
  period: { weekly: '{amount} на тиждень', monthly: '{amount} на місяць', three_month: '{amount} раз на три місяці' },
  subject: { subscribed: 'Ваша підписка на {name} активна', renewal_due: 'Час продовжити підписку на {name}', renewal_auto: 'Продовження {name} буде списано автоматично', paid: 'Продовження {name} оплачено', failed: 'Вашу підписку на {name} зупинено', cancelled: 'Вашу підписку на {name} скасовано' },
  body: {
    subscribed: 'Дякуємо. Ваша підписка на {name} у {merchant} активна: {price}.',
    renewal_due: 'Почався новий період вашої підписки на {name} у {merchant}: {price}. Оплатіть продовження, щоб підписка залишалася активною.',
    renewal_auto: 'Почався новий період вашої підписки на {name} у {merchant}: {price}. Суму буде списано автоматично з гаманця, якому ви надали дозвіл, тож робити нічого не потрібно. Переглянути платіж або скасувати підписку можна на її сторінці.',
    paid: 'Ваш платіж за новий період {name} у {merchant} отримано: {price}. Підписка залишається активною.',
    failed: 'Продовження {name} у {merchant} ({price}) не було оплачено вчасно, тому підписку зупинено.',
    cancelled: 'Вашу підписку на {name} у {merchant} ({price}) скасовано. Нових продовжень не буде.',
  },
  pay: 'Оплатити продовження:',
  page: 'Ваша підписка:',
  why: 'Ви отримали цей лист, бо вказали цю адресу, коли оформлювали підписку у {merchant}.',
};
